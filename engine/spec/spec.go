// Package spec describes a test before it runs: which workload, against
// which server, with which options. Validate checks a Spec the way a user
// needs it checked: every error names the option at fault.
package spec

import (
	"fmt"
	"time"

	"netscript/engine/sock"
)

// Workload is one of the classic netperf tests.
type Workload int

// The workloads netscript runs.
const (
	TCPRR Workload = iota + 1
	TCPCRR
	UDPRR
	TCPStream
	TCPMaerts
	UDPStream
)

var workloadNames = [...]string{"", "TCP_RR", "TCP_CRR", "UDP_RR", "TCP_STREAM", "TCP_MAERTS", "UDP_STREAM"}

// String returns netperf's name for w ("TCP_RR").
func (w Workload) String() string {
	if w > 0 && int(w) < len(workloadNames) {
		return workloadNames[w]
	}
	return fmt.Sprintf("workload(%d)", int(w))
}

// Builtin returns the Starlark builtin's name for w ("tcp_rr").
func (w Workload) Builtin() string {
	switch w {
	case TCPRR:
		return "tcp_rr"
	case TCPCRR:
		return "tcp_crr"
	case UDPRR:
		return "udp_rr"
	case TCPStream:
		return "tcp_stream"
	case TCPMaerts:
		return "tcp_maerts"
	case UDPStream:
		return "udp_stream"
	}
	return w.String()
}

// ParseWorkload reads netperf's name of a test ("TCP_RR").
func ParseWorkload(s string) (Workload, error) {
	for i, n := range workloadNames {
		if i > 0 && n == s {
			return Workload(i), nil
		}
	}
	return 0, fmt.Errorf("unknown test %q", s)
}

// RR reports whether w is a request/response test.
func (w Workload) RR() bool { return w == TCPRR || w == TCPCRR || w == UDPRR }

// UDP reports whether w runs over UDP.
func (w Workload) UDP() bool { return w == UDPRR || w == UDPStream }

// DefaultControlPort is where `netscript serve` listens unless told
// otherwise (netperf's netserver uses 12865).
const DefaultControlPort = 12866

// DefaultDuration is a test's length when neither a duration nor a count is
// given, as in netperf.
const DefaultDuration = 10 * time.Second

// DefaultUDPTimeout is how long UDP_RR waits for a response before it counts
// the transaction as lost.
const DefaultUDPTimeout = time.Second

// DefaultConnectTimeout bounds connecting to a server at set-up.
const DefaultConnectTimeout = 5 * time.Second

// Spec is everything that defines one test.
type Spec struct {
	Workload       Workload
	Host           string // the server's control address; "" means the embedded loopback server
	Port           int    // the server's control port
	Duration       time.Duration
	Transactions   uint64 // end after this many transactions instead (RR)
	Request        int    // request size in bytes (RR)
	Response       int    // response size in bytes (RR)
	Burst          int    // requests in flight beyond the first (TCP_RR, UDP_RR)
	NoDelay        bool   // TCP_NODELAY on both ends
	Local          string // source address to bind; "" lets the kernel choose
	LocalPort      int    // source port to bind; 0 lets the kernel choose
	DataPort       int    // the server's data port; 0 lets the server choose
	Family         sock.Family
	Brand          string        // a tag carried into the result
	Timeout        time.Duration // UDP_RR loss timeout
	ConnectTimeout time.Duration // bound on connecting at set-up
}

// Default returns the defaults of workload w, as netperf has them.
func Default(w Workload) Spec {
	return Spec{
		Workload:       w,
		Port:           DefaultControlPort,
		Duration:       DefaultDuration,
		Request:        1,
		Response:       1,
		Timeout:        DefaultUDPTimeout,
		ConnectTimeout: DefaultConnectTimeout,
	}
}

// OptionError is a bad value of one option.
type OptionError struct {
	Option string
	Msg    string
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Msg }

func bad(opt, format string, args ...any) error {
	return &OptionError{Option: opt, Msg: fmt.Sprintf(format, args...)}
}

// MaxMessage bounds request and response sizes (64 MiB).
const MaxMessage = 64 << 20

// MaxBurst bounds the requests kept in flight.
const MaxBurst = 1 << 16

// Validate checks every option and names the first one at fault.
func (s *Spec) Validate() error {
	if s.Workload < TCPRR || s.Workload > UDPStream {
		return bad("test", "unknown workload %d", int(s.Workload))
	}
	if s.Duration < 0 {
		return bad("duration", "must not be negative, got %v", s.Duration)
	}
	if s.Duration == 0 && s.Transactions == 0 {
		return bad("duration", "must be positive when no transaction count is given")
	}
	if s.Transactions > 0 && !s.Workload.RR() {
		return bad("transactions", "applies only to request/response tests")
	}
	if s.Port < 1 || s.Port > 65535 {
		return bad("port", "must be in 1-65535, got %d", s.Port)
	}
	if s.DataPort < 0 || s.DataPort > 65535 {
		return bad("data_port", "must be in 0-65535, got %d", s.DataPort)
	}
	if s.LocalPort < 0 || s.LocalPort > 65535 {
		return bad("local_port", "must be in 0-65535, got %d", s.LocalPort)
	}
	if s.Workload.RR() {
		max := MaxMessage
		if s.Workload.UDP() {
			max = 65507
		}
		if s.Request < 1 || s.Request > max {
			return bad("request", "must be between 1 and %d bytes, got %d", max, s.Request)
		}
		if s.Response < 1 || s.Response > max {
			return bad("response", "must be between 1 and %d bytes, got %d", max, s.Response)
		}
	}
	if s.Burst < 0 || s.Burst > MaxBurst {
		return bad("burst", "must be between 0 and %d, got %d", MaxBurst, s.Burst)
	}
	if s.Burst > 0 && s.Workload != TCPRR && s.Workload != UDPRR {
		return bad("burst", "applies only to tcp_rr and udp_rr (a %s transaction has its own connection)", s.Workload.Builtin())
	}
	if s.Workload == UDPRR && s.Timeout <= 0 {
		return bad("timeout", "must be positive, got %v", s.Timeout)
	}
	if s.ConnectTimeout <= 0 {
		return bad("connect_timeout", "must be positive, got %v", s.ConnectTimeout)
	}
	if len(s.Brand) > 1024 {
		return bad("brand", "longer than 1024 bytes")
	}
	return nil
}
