package spec

import (
	"fmt"
	"net/netip"
)

// MaxFlows bounds the flows of one tcp_rr or tcp_crr test. Past
// ThreadedFlows their flows share a few epoll threads per end (package
// mux), so the bound is set by file descriptors (one per flow on each end),
// not threads.
const MaxFlows = 4096

// MaxThreadFlows bounds the flows of a test that runs a thread per flow on
// the client: the UDP and stream workloads, and tcp_rr or tcp_crr with
// rate, an arrival schedule, interval or fastopen (which the epoll threads
// do not do). The server serves every workload's flows past ThreadedFlows
// on a few threads (the streams and tcp_rr on epoll threads, the others on
// one thread per data port), so a client cannot make it spend a thread per
// flow.
const MaxThreadFlows = 256

// ThreadedFlows is how many flows of tcp_rr and tcp_crr still get a thread
// each on the client (and, for tcp_rr and the streams, on the server);
// more run on a few epoll threads per end. A thread per flow makes exactly the system calls
// netperf makes (one blocking send and one receive per transaction), so a
// few flows compare with as many netperfs flow for flow. But each such
// thread wakes alone for every transaction: once there are more flows than
// CPUs the threads queue for the CPUs, every wake-up is a context switch,
// and the flows start one after another as their threads get a CPU. An
// epoll thread serves every flow that is ready in one wake-up. Measured on
// two CPUs (TCP_RR on loopback, both ends alike): at 4 flows threads gave
// about 82k transactions/s and epoll 70k; at 8 flows threads 77k and epoll
// 102k; at 16 flows threads 71k with 6-17 ms between the first and last
// flow's first transaction, epoll 80-112k with 1-2 ms.
const ThreadedFlows = 4

// PortRange is an inclusive range of ports.
type PortRange struct {
	Lo, Hi int
}

// Len is how many ports the range holds.
func (r PortRange) Len() int { return r.Hi - r.Lo + 1 }

// FlowCount is the number of flows, at least 1.
func (s *Spec) FlowCount() int {
	if s.Flows < 1 {
		return 1
	}
	return s.Flows
}

// threadOnly names the option that keeps a tcp_rr or tcp_crr test on a
// thread per flow, or "" if none does.
func (s *Spec) threadOnly() string {
	switch {
	case s.Rate > 0:
		return "rate"
	case s.Open():
		return OptArrivalRate
	case s.Interval > 0:
		return "interval"
	case s.FastOpen:
		return "fastopen"
	}
	return ""
}

// Multiplexed reports whether the test's flows run on a few epoll threads
// per end (package mux) rather than on a thread each.
func (s *Spec) Multiplexed() bool {
	return s.Workload.MuxClient && s.FlowCount() > ThreadedFlows && s.threadOnly() == ""
}

// LocalFor returns the source address and port flow i binds ("" and 0
// leave them to the kernel).
func (s *Spec) LocalFor(i int) (string, int) {
	addr, port := s.Local, s.LocalPort
	if i < len(s.Locals) {
		addr = s.Locals[i]
	}
	if i < len(s.LocalPorts) {
		port = s.LocalPorts[i]
	}
	return addr, port
}

// DataPortFor returns the server data port flow i goes to (0: the server's
// choice).
func (s *Spec) DataPortFor(i int) int {
	if i < len(s.DataPorts) {
		return s.DataPorts[i]
	}
	return s.DataPort
}

// validateFlows checks flows, the per-flow lists and the port range.
func (s *Spec) validateFlows() error {
	n := s.Flows
	if n < 1 {
		return bad("flows", "must be at least 1, got %d", n)
	}
	if n > MaxFlows {
		return bad("flows", "must be at most %d, got %d", MaxFlows, n)
	}
	if n > MaxThreadFlows {
		if !s.Workload.MuxClient {
			var many []string
			for _, w := range Workloads() {
				if w.MuxClient {
					many = append(many, w.Name)
				}
			}
			return bad("flows", "must be at most %d for %s, which runs a thread per flow on each end (%s take up to %d), got %d",
				MaxThreadFlows, s.Workload.Name, joinAnd(many), MaxFlows, n)
		}
		if o := s.threadOnly(); o != "" {
			return bad("flows", "must be at most %d with %s, which needs a thread per flow on each end, got %d", MaxThreadFlows, o, n)
		}
	}
	for _, l := range []struct {
		name string
		n    int
		what string
	}{{"local", len(s.Locals), "addresses"}, {"local_port", len(s.LocalPorts), "ports"}, {"data_port", len(s.DataPorts), "ports"}} {
		if l.n != 0 && l.n != n {
			return &OptionError{Option: l.name, Err: &FlowListError{Len: l.n, What: l.what, Flows: n}}
		}
	}
	if len(s.Locals) > 0 && s.Local != "" {
		return bad("local", "give one address or a list, not both")
	}
	if len(s.LocalPorts) > 0 && s.LocalPort != 0 {
		return bad("local_port", "give one port or a list, not both")
	}
	// Checked here, before set-up: a server would be told these sources.
	for _, a := range s.Sources() {
		if _, err := netip.ParseAddr(a); err != nil {
			return bad("local", "not an IP address: %s", a)
		}
	}
	if len(s.DataPorts) > 0 && s.DataPort != 0 {
		return bad("data_port", "give one port or a list, not both")
	}
	for i, p := range s.LocalPorts {
		if p < 0 || p > 65535 {
			return bad("local_port", "[%d]: must be between 0 and 65535, got %d", i, p)
		}
	}
	for i, p := range s.DataPorts {
		if p < 1 || p > 65535 {
			return bad("data_port", "[%d]: must be between 1 and 65535, got %d", i, p)
		}
	}
	if s.LocalPort != 0 && n > 1 {
		walk := ""
		if s.Workload.Accepts(OptLocalPorts) {
			walk = ", or local_ports (lo, hi) to walk a range"
		}
		return bad("local_port", "%d flows cannot share source port %d; give a list with one port per flow%s", n, s.LocalPort, walk)
	}
	return s.validatePortRange()
}

// validatePortRange checks local_ports, TCP_CRR's port walk.
func (s *Spec) validatePortRange() error {
	r := s.LocalPortRange
	if r == nil {
		return nil
	}
	if r.Lo < 1 || r.Hi > 65535 || r.Lo > r.Hi {
		return bad("local_ports", "want (lo, hi) with 1 <= lo <= hi <= 65535, got (%d, %d)", r.Lo, r.Hi)
	}
	if s.LocalPort != 0 || len(s.LocalPorts) > 0 {
		return bad("local_ports", "give local_port or local_ports, not both")
	}
	if r.Len() < s.FlowCount() {
		return bad("local_ports", "(%d, %d) holds %d ports for %d flows: each flow needs at least one", r.Lo, r.Hi, r.Len(), s.FlowCount())
	}
	return nil
}

// FlowError is a failure of one flow of a test, at set-up or during it.
type FlowError struct {
	Flow  int // 0-based
	Flows int // how many the test has
	Err   error
}

// Error says which flow failed and why.
func (e *FlowError) Error() string {
	return fmt.Sprintf("flow %d of %d: %v", e.Flow, e.Flows, e.Err)
}

// Unwrap returns the cause.
func (e *FlowError) Unwrap() error { return e.Err }

// Sources lists the distinct source addresses the test's data will be sent
// from when they are given (`local`, one per flow or one for all), for a
// server that takes data only from an authenticated client.
func (s *Spec) Sources() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range append([]string{s.Local}, s.Locals...) {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
