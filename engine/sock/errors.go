package sock

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// OpError describes a failed socket operation: what was being done, to which
// address, from which local address, and the cause. Its message reads like
// "connect 198.18.0.2:12866 from 198.18.1.7: connection refused".
type OpError struct {
	Op     string // "connect", "bind", "listen", ...
	Addr   string // the remote or target address, if any
	Source string // the local address, if one was asked for
	Err    error  // the cause, usually a unix.Errno
}

// Error formats the failure with its hint, if one applies.
func (e *OpError) Error() string {
	s := e.Op
	if e.Addr != "" {
		s += " " + e.Addr
	}
	if e.Source != "" {
		s += " from " + e.Source
	}
	s += ": " + e.Err.Error()
	if h := Hint(e.Err); h != "" {
		s += " (" + h + ")"
	}
	return s
}

// Unwrap returns the cause so callers can test it with errors.Is.
func (e *OpError) Unwrap() error { return e.Err }

// Hint returns a short explanation a user can act on for errnos that are
// common in benchmarks, or "".
func Hint(err error) string {
	var en unix.Errno
	if !errors.As(err, &en) {
		return ""
	}
	switch en {
	case unix.EADDRNOTAVAIL:
		return "the local address is not on this machine, or local ports are exhausted; TIME_WAIT? see net.ipv4.ip_local_port_range"
	case unix.EADDRINUSE:
		return "the address and port are in use; TIME_WAIT?"
	case unix.ECONNREFUSED:
		return "nothing listens there"
	case unix.ETIMEDOUT, unix.EINPROGRESS:
		return "the host did not answer in time"
	case unix.ENETUNREACH, unix.EHOSTUNREACH:
		return "no route to the host"
	case unix.EMFILE, unix.ENFILE:
		return "too many open files; raise ulimit -n"
	case unix.EOPNOTSUPP:
		return "for TCP Fast Open the client's net.ipv4.tcp_fastopen needs bit 1"
	}
	return ""
}

// ErrnoName returns the symbolic name of an errno ("EADDRNOTAVAIL"), used as
// the key of a result's error counts.
func ErrnoName(e unix.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return fmt.Sprintf("errno%d", int(e))
}
