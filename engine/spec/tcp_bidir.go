package spec

// TCPBidir is bulk data both ways at once (iperf3 --bidir, neper -rw):
// with one connection per flow (connections=1) both ends send and receive
// on it, each direction on a thread of its own at each end; with one per
// direction (connections=2) it runs as TCP_STREAM and TCP_MAERTS side by
// side, started at one instant. Either way its result is the sum of the
// two directions, with each one's own figures as those tests report them
// (tx and rx), counted with their end-of-test rules.
var TCPBidir = &Workload{
	Name: "tcp_bidir", Netperf: "TCP_BIDIR", Code: 8,
	Unit:       "bulk data both ways at once, on one connection or one per direction",
	Short:      "bulk data both ways at once",
	Bulk:       true,
	Bidir:      true,
	Pair:       [2]*Workload{TCPStream, TCPMaerts},
	Takes:      []string{OptNoDelay, OptSendSize, OptRecvSize, OptBytes, OptConnections, OptProtocol},
	TakesKnobs: []string{OptCongestion, OptNotsentLowat, OptMSS, OptCork},
}

// BidirSplit reports whether a tcp_bidir test runs with a connection per
// direction, as its Pair: connections=2, or connections not given against
// a netserver (which has no test that sends both ways on one connection,
// but runs a TCP_STREAM and a TCP_MAERTS side by side).
func (s *Spec) BidirSplit() bool {
	return s.Workload.Bidir && (s.Connections == 2 || s.Connections == 0 && s.Netserver())
}

// validateBidir checks connections, and what a test both ways cannot do.
func (s *Spec) validateBidir() error {
	if !s.Workload.Bidir {
		return nil
	}
	if s.Connections < 0 || s.Connections > 2 {
		return bad(OptConnections, "want 1 (one connection per flow, both ends sending on it) or 2 (one per direction), got %d", s.Connections)
	}
	if s.NoControl {
		return bad("control", "%s needs a control connection: the server sends too, and only a control connection can tell it how", s.Workload.Name)
	}
	if s.Netserver() && !s.BidirSplit() {
		return &NetserverUnsupportedError{Option: OptConnections + "=1",
			Why: "netserver has no test that sends both ways on one connection; connections=2 (the default against a netserver) runs TCP_STREAM and TCP_MAERTS side by side"}
	}
	return nil
}

// Direction is the test a tcp_bidir test of a connection per direction
// runs as in direction i of Workload.Pair: this test's options, with
// what is tcp_bidir's own left out.
func (s *Spec) Direction(i int) Spec {
	d := *s
	d.Workload = s.Workload.Pair[i]
	d.Connections = 0
	return d
}
