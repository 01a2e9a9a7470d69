package spec

import (
	"fmt"
	"strings"
)

// Workload describes one of netscript's tests, once and in one place: what
// it is called, what one unit of its work is, its traits, the options it
// takes beyond those every test takes. The client, the server, the
// multiplexed runner and every front end ask a Workload instead of
// switching on which test it is; adding a test is adding a Workload (one
// file), listing it in Workloads, and binding its data loops in
// engine/datapath.
type Workload struct {
	Name    string // netscript's name: "tcp_rr"
	Netperf string // netperf's name, which results carry: "TCP_RR"
	// Code is the workload's number in the control protocol's test
	// description (proto.TestSpec). Once given it never changes and is
	// never reused.
	Code  int
	Unit  string // what one unit of work is, as a phrase
	Short string // the same in a few words, for lists

	// Datagram: the test runs over UDP (else TCP).
	Datagram bool
	// PerTransaction: every transaction opens a new connection to one
	// listener of the server, which serves every flow on it (else each
	// flow has one connection, or connected socket, made before the
	// measured interval).
	PerTransaction bool
	// Bulk: the test moves bulk data and its throughput is in 10^6 bits/s
	// of what the receiver counted (else it counts transactions, each
	// timed into a latency histogram).
	Bulk bool
	// ServerSends: in a bulk test the server sends and the client
	// receives (TCP_MAERTS); the server paces its sends, and what it sent
	// after the interval is read after Stop and counted as drained.
	ServerSends bool
	// Messages: each transaction carries a request and a response whose
	// sizes the test chooses (else a transaction carries no data).
	Messages bool
	// HalfClose: after the measured interval the client half-closes each
	// flow's connection and reads until the server closes it, so the
	// server answers and counts every request that was sent.
	HalfClose bool
	// Takes lists the options this workload takes beyond those every
	// workload takes (see Accepts).
	Takes []string

	// MuxClient: the client can run a test of many flows on a few epoll
	// threads (see Spec.Multiplexed); else it keeps a thread per flow, and
	// at most MaxThreadFlows flows.
	MuxClient bool
	// MuxServer: the server serves the connections of a test of many
	// flows on a few epoll threads; else each on a thread of its own.
	MuxServer bool
	// The data loops that run the workload on each end are bound to it in
	// engine/datapath, so a test's description needs no data path.

	// NetperfClassic is the type of the classic request netperf sends for
	// this test instead of DO_OMNI (npwire.TypeDoTCPCC for TCP_CC); 0: an
	// omni request, whose fields the traits above give, describes it.
	NetperfClassic int32
	// TakesKnobs lists the socket knobs (knobs.go) this workload takes beyond
	// those every workload takes (see TakesKnob). They are apart from
	// Takes: a builtin takes every knob, and a knob its workload does not
	// take is refused with the reason why, not as an unknown option.
	TakesKnobs []string
}

// Workloads lists every workload, in the order help lists them.
func Workloads() []*Workload {
	return []*Workload{TCPRR, TCPCRR, UDPRR, TCPStream, TCPMaerts, UDPStream, TCPCC}
}

// LookupWorkload finds a workload by netscript's name or netperf's, in any
// case ("tcp_rr", "TCP_RR").
func LookupWorkload(name string) (*Workload, error) {
	for _, w := range Workloads() {
		if strings.EqualFold(name, w.Name) || strings.EqualFold(name, w.Netperf) {
			return w, nil
		}
	}
	return nil, fmt.Errorf("unknown test %q (%s)", name, strings.Join(WorkloadNames(), ", "))
}

// WorkloadByCode finds a workload by its number in the control protocol.
func WorkloadByCode(code int) (*Workload, error) {
	for _, w := range Workloads() {
		if w.Code == code {
			return w, nil
		}
	}
	return nil, fmt.Errorf("unknown workload %d", code)
}

// WorkloadNames lists netscript's names of the workloads, in order.
func WorkloadNames() []string {
	var out []string
	for _, w := range Workloads() {
		out = append(out, w.Name)
	}
	return out
}

// String returns netperf's name of w ("TCP_RR").
func (w *Workload) String() string {
	if w == nil {
		return "no workload"
	}
	return w.Netperf
}

// RR reports whether w counts transactions (request/response and
// connection tests), as opposed to bulk data.
func (w *Workload) RR() bool { return !w.Bulk }

// Endpoint reports whether one server loop serves every flow that comes to
// an endpoint (a listener that accepts a connection per transaction, or a
// UDP socket), rather than one loop per connection.
func (w *Workload) Endpoint() bool { return w.PerTransaction || w.Datagram }

// PerFlowRemote reports whether the server can count each flow apart (it
// has a connection per flow), so each flow gets the server's count of it.
func (w *Workload) PerFlowRemote() bool { return !w.Endpoint() }

// ClientSends reports whether the client is the sender of a bulk test.
func (w *Workload) ClientSends() bool { return w.Bulk && !w.ServerSends }

// Paced reports whether a rate paces the client's units of work (a test
// whose server sends is paced on the server).
func (w *Workload) Paced() bool { return !(w.Bulk && w.ServerSends) }

// Accepts reports whether w takes the option called name: every workload
// takes the options no workload lists in Takes.
func (w *Workload) Accepts(name string) bool {
	if _, specific := ruleOf(name); !specific {
		return true
	}
	for _, t := range w.Takes {
		if t == name {
			return true
		}
	}
	return false
}

// Takers lists the workloads that take the option called name.
func Takers(name string) []*Workload {
	var out []*Workload
	for _, w := range Workloads() {
		if w.Accepts(name) {
			out = append(out, w)
		}
	}
	return out
}
