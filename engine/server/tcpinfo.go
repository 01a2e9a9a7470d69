package server

import (
	"golang.org/x/sys/unix"

	"netscript/engine/mux"
	"netscript/engine/proto"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// knobsOf checks the socket knobs a Setup asks for (hostile input: the
// same bounds as the client's) and returns them as the data path sets
// them.
func knobsOf(w *spec.Workload, m *proto.Setup) (sock.Knobs, error) {
	k := m.Knobs.Sock()
	if err := spec.CheckKnobs(w, &k); err != nil {
		return sock.Knobs{}, err
	}
	return k, nil
}

// applyKnobs sets the test's knobs on one of the server's data sockets: an
// endpoint (a listener passes them to the connections it accepts) or an
// accepted connection.
func (t *test) applyKnobs(fd, family int) error {
	if !t.knobs.Given() {
		return nil
	}
	k := t.knobs
	if family == 0 {
		family = unix.AF_INET
		if sock.LocalAddr(fd).Addr().Is6() {
			family = unix.AF_INET6
		}
	}
	return k.Apply(fd, family, !t.w.Datagram, !t.w.Bulk || t.w.ServerSends, "server")
}

// readsTCP reports whether the server reads TCP_INFO of each connection it
// serves on a thread of its own, at the start and the end of its loop.
func (t *test) readsTCP() bool {
	return t.setup.TCPInfo && !t.w.Datagram && !t.w.PerTransaction
}

// connTCP runs serve between the two TCP_INFO readings of fd (when the
// client asked for them) and puts the difference into c.
func (t *test) connTCP(fd int, serve func(), c *workload.ServerCounts) {
	if !t.readsTCP() {
		serve()
		return
	}
	var sp sock.TCPSpan
	sp.Begin(fd)
	serve()
	sp.End(fd, &c.TCP)
}

// beginMuxTCP applies the knobs to a multiplexed test's accepted
// connections and takes their start TCP_INFO readings (when asked).
func (t *test) beginMuxTCP(conns []*mux.Conn) []sock.TCPSpan {
	for _, c := range conns {
		if err := t.applyKnobs(c.FD, 0); err != nil {
			t.fail(err)
		}
	}
	if !t.readsTCP() {
		return nil
	}
	spans := make([]sock.TCPSpan, len(conns))
	for i, c := range conns {
		spans[i].Begin(c.FD)
	}
	return spans
}

// endMuxTCP takes the end readings into each connection's counts.
func (t *test) endMuxTCP(conns []*mux.Conn, spans []sock.TCPSpan) {
	for i := range spans {
		spans[i].End(conns[i].FD, &conns[i].Counts.TCP)
	}
}
