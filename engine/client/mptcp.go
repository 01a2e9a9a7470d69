package client

import (
	"errors"
	"time"

	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
)

// protocolErr names the protocol option when this machine's kernel
// refused an MPTCP socket.
func protocolErr(err error) error {
	var me *sock.MPTCPError
	if errors.As(err, &me) {
		me.End = "client"
		return &spec.OptionError{Option: spec.OptProtocol, Err: me}
	}
	return err
}

// mptcpSpan reads one MPTCP connection's subflows at the start of the
// measured interval and at its end (outside the loops, as TCP_INFO is).
type mptcpSpan struct {
	r     sock.MPTCPReader
	start [sock.MaxSubflows]result.TCPConn
	n     int
	ok    bool
	at    time.Time
}

// begin takes the start reading of fd.
func (m *mptcpSpan) begin(fd int) {
	n, _, en := m.r.Subflows(fd)
	m.ok, m.n, m.at = en == 0, 0, time.Now()
	for i := 0; m.ok && i < n && m.r.Subflow(i, &m.start[i]); i++ {
		m.n = i + 1
	}
}

// end takes the end reading of fd: its subflows, and each one's TCP_INFO
// over the interval (since it joined, for one that joined during it:
// subflows keep their order, and one that was there at the start is the
// one at its place now). nil if fd could not be read.
func (m *mptcpSpan) end(fd int) *result.MPTCPConn {
	n, fallback, en := m.r.Subflows(fd)
	if en != 0 {
		return nil
	}
	c := &result.MPTCPConn{Subflows: n, Fallback: fallback}
	span := uint64(time.Since(m.at))
	for i := 0; i < min(n, sock.MaxSubflows); i++ {
		var t result.TCPConn
		if !m.r.Subflow(i, &t) {
			break
		}
		if i < m.n {
			sock.Since(&t, &m.start[i])
		}
		var sums result.TCPSums
		sums.Add(&t)
		sums.SpanNs = span
		c.Sums = append(c.Sums, sums)
	}
	return c
}

// beginMPTCP takes the start reading of a flow's MPTCP connection.
func (w *worker) beginMPTCP(f *flow) {
	if w.mptcp && f.fd >= 0 {
		f.mp = &mptcpSpan{}
		f.mp.begin(f.fd)
	}
}

// endMPTCP takes the end reading of a flow's MPTCP connection.
func (w *worker) endMPTCP(f *flow) {
	if f.mp != nil && f.fd >= 0 {
		f.mpConn = f.mp.end(f.fd)
	}
}

// addMPTCP puts each flow's subflows into its result and, merged, at the
// top.
func (r *run) addMPTCP(res *result.Result, w *worker) {
	if !w.mptcp {
		return
	}
	var all result.MPTCP
	for i, f := range w.flows {
		if f.mpConn == nil {
			continue
		}
		var m result.MPTCP
		m.Add(f.mpConn)
		if i < len(res.Flows) {
			res.Flows[i].MPTCP = &m
		}
		all.Add(f.mpConn)
	}
	if all.Connections > 0 {
		res.MPTCP = &all
	}
}
