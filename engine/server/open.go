package server

import (
	"net"
	"net/netip"

	"netscript/engine/sock"
)

// Plan is every listener and standing endpoint a daemon opens at start.
type Plan struct {
	Listen  []string     // control listeners ("127.0.0.1:12866")
	Netperf []string     // netperf listeners
	Data    []DataConfig // standing endpoints
}

// Opened is where the listeners and endpoints of a Plan listen, in its
// order.
type Opened struct {
	Listen, Netperf []net.Addr
	Data            []netip.AddrPort
}

// OpenError is the listener or endpoint of a Plan that could not be
// opened: Kind is "listen", "netperf" or "data", Index its place in the
// Plan's list.
type OpenError struct {
	Kind  string
	Index int
	Err   error
}

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// Open binds every listener and standing endpoint of p, and only once all
// are bound serves them: if one cannot be, those already bound are closed
// and nothing was ever served.
func (s *Server) Open(p Plan) (Opened, error) {
	var o Opened
	var ls, nls []net.Listener
	var sts []*standing
	undo := func() {
		for _, l := range append(ls, nls...) {
			l.Close()
		}
		for _, st := range sts {
			sock.Close(st.fd)
		}
	}
	for i, a := range p.Netperf {
		l, err := bind(a, "listen for netperf on "+a)
		if err != nil {
			undo()
			return o, &OpenError{"netperf", i, err}
		}
		nls = append(nls, l)
	}
	for i, a := range p.Listen {
		l, err := bind(a, "listen "+a)
		if err != nil {
			undo()
			return o, &OpenError{"listen", i, err}
		}
		ls = append(ls, l)
	}
	for i, cfg := range p.Data {
		st, err := s.bindData(cfg)
		if err != nil {
			undo()
			return o, &OpenError{"data", i, err}
		}
		sts = append(sts, st)
	}
	// All bound: serve them, netperf's listeners first (once the native
	// one answers, which scripts and tests wait for, every one does).
	for i, l := range nls {
		if err := s.serveOn(l, s.netperfSession, s.netperfBusy); err != nil {
			return o, &OpenError{"netperf", i, err}
		}
		o.Netperf = append(o.Netperf, l.Addr())
	}
	for i, st := range sts {
		if err := s.startData(st); err != nil {
			return o, &OpenError{"data", i, err}
		}
		o.Data = append(o.Data, sock.LocalAddr(st.fd))
	}
	for i, l := range ls {
		if err := s.serveOn(l, s.session, s.busy); err != nil {
			return o, &OpenError{"listen", i, err}
		}
		o.Listen = append(o.Listen, l.Addr())
	}
	return o, nil
}
