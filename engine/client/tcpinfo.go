package client

import (
	"netscript/engine/result"
	"netscript/engine/spec"
)

// applyKnobs sets the test's socket knobs on one of this end's data
// sockets (or a probe like them) before the measured interval, so a knob
// the kernel refuses fails the test before any traffic.
func applyKnobs(s *spec.Spec, fd, family int) error {
	if !s.Knobs.Given() {
		return nil
	}
	k := s.Workload
	return s.Knobs.Apply(fd, family, !k.Datagram, !k.Bulk || k.ClientSends(), "client")
}

// readsTCP reports whether this test's flows read TCP_INFO: every TCP
// test with a connection per flow, and tcp_crr with tcp_info=True.
func readsTCP(s *spec.Spec) bool {
	k := s.Workload
	return !k.Datagram && (!k.PerTransaction || s.Knobs.TCPInfo)
}

// addTCP puts the client's TCP_INFO figures into each flow and, summed,
// at the top of the result.
func (r *run) addTCP(res *result.Result, w *worker) {
	if !readsTCP(&r.spec) {
		return
	}
	var all result.TCPSums
	for i, f := range w.flows {
		c := f.counts()
		if i < len(res.Flows) {
			res.Flows[i].TCP = result.TCPOf(&c.TCP)
		}
		all.Merge(&c.TCP)
	}
	res.TCP = result.TCPOf(&all)
}

// beginTCP takes the start-of-interval TCP_INFO readings of the flows
// that keep one connection (outside their loops).
func (w *worker) beginTCP(f *flow) {
	if w.tcp && f.fd >= 0 {
		f.tcp.Begin(f.fd)
	}
}

// endTCP takes the end readings into the flow's counts.
func (w *worker) endTCP(f *flow) {
	if w.tcp && f.fd >= 0 {
		f.tcp.End(f.fd, &f.counts().TCP)
	}
}
