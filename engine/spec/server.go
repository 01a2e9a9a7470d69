package spec

import (
	"errors"
	"math"
)

// What answers at host:port (Spec.Server).
const (
	// ServerNetscript is `netscript serve` (or the embedded loopback
	// server), the default.
	ServerNetscript = "netscript"
	// ServerNetserver is an unmodified netserver of netperf 2.7, spoken
	// to in netperf's own control protocol (package npwire).
	ServerNetserver = "netserver"
)

// NetserverPort is netserver's control port, the port of a test against a
// netserver when none is given (netperf's TEST_PORT).
const NetserverPort = 12865

// Netserver reports whether the test runs against a netserver.
func (s *Spec) Netserver() bool { return s.Server == ServerNetserver }

// NetserverUnsupportedError is an option a netserver cannot honour,
// refused before any traffic. The front end names the option in its own
// syntax (starlib: `server="netserver": option client= ...`).
type NetserverUnsupportedError struct {
	Option string
	Why    string // "" says nothing more
}

func (e *NetserverUnsupportedError) Error() string {
	return "against a netserver: option " + e.Option + " is not supported by netserver" + e.Because()
}

// Because is the reason in parentheses after a space, or "".
func (e *NetserverUnsupportedError) Because() string {
	if e.Why == "" {
		return ""
	}
	return " (" + e.Why + ")"
}

// ErrNetserverNeedsHost is why a test against a netserver without a host
// is refused (the cause of an OptionError for host).
var ErrNetserverNeedsHost = errors.New("a test against a netserver needs host: the embedded loopback server is netscript's")

// validateServer checks the server option and, against a netserver, that
// every option given is one netperf's protocol can carry (or one the
// client does on its own: pacing, interim samples, the client's CPU,
// buffers and addresses).
func (s *Spec) validateServer() error {
	switch s.Server {
	case "", ServerNetscript:
		return nil
	case ServerNetserver:
	default:
		return bad("server", "want %q or %q, got %q", ServerNetscript, ServerNetserver, s.Server)
	}
	no := func(opt, why string) error {
		return &NetserverUnsupportedError{Option: opt, Why: why}
	}
	switch {
	case s.Client != "":
		return no("client", "a netserver serves netperf, not a netscript daemon that runs the client side")
	case s.NoControl:
		return no("control", "a test without a control connection talks to a netscript standing endpoint; a netserver always has a control connection")
	case s.Host == "":
		return &OptionError{Option: "host", Err: ErrNetserverNeedsHost}
	case s.Workload.ServerSending() && s.Rate != 0:
		return no("rate", "netserver paces its sends only when built with --enable-intervals, and says nothing of it; tcp_maerts is sent by the server")
	case s.DataPort != 0 && s.FlowCount() > 1:
		return bad("data_port", "against a netserver each flow has a netserver of its own, which binds its own data port: "+
			"give a list of %d ports, one per flow", s.FlowCount())
	case s.Transactions > math.MaxInt32:
		return no("transactions", "netperf's protocol carries a count of at most 2147483647")
	case s.Bytes > math.MaxInt32:
		return no("bytes", "netperf's protocol carries a count of at most 2147483647 bytes")
	}
	return nil
}
