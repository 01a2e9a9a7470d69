package client

import "fmt"

// NetserverError is a failure of a test against a netserver
// (spec.ServerNetserver): Addr is the netserver's control address, Err
// what went wrong with it, in words that name the address where it
// matters. Its text begins "netserver: "; a front end may name the option
// that chose netserver in its own syntax instead (Err's text alone).
type NetserverError struct {
	Addr string
	Err  error
}

func (e *NetserverError) Error() string { return "netserver: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *NetserverError) Unwrap() error { return e.Err }

// npErrorf is a NetserverError for the netserver at addr.
func npErrorf(addr, format string, args ...any) error {
	return &NetserverError{Addr: addr, Err: fmt.Errorf(format, args...)}
}

// Beginnings of notes a result may carry, for a front end that words them
// its own way (starlib says what a script reads: "remote_cpu is None").
const (
	// NoteNetserver begins the note of a test against a netserver on the
	// figures netserver does not report.
	NoteNetserver = "netserver does not report "
	// NoteRemoteCPUUnreported begins the note of a test whose server
	// reported no CPU figures; why follows.
	NoteRemoteCPUUnreported = "cpu_util: remote_cpu not reported: "
)
