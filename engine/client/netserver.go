package client

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"netscript/engine/npwire"
	"netscript/engine/proto"
	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/sysinfo"
	"netscript/engine/workload"
)

// A test with server="netserver" runs against an unmodified netserver
// (netperf 2.7) in netperf's own control protocol: one control
// connection per flow, each carrying the request netperf sends for the
// workload (DO_OMNI, or DO_TCP_CC), netserver's response with its data
// port, and after the test its results. The data path is the one every
// test runs (newWorker, the workload's loops, one start for all flows);
// only the far end's side of the conversation differs. netserver sends no
// heartbeats and cannot be told to stop: the client ends each flow as
// netperf does (a half-close, end-of-test datagrams), or netserver's own
// timer does.

// errConnRefused is what connecting to a port nothing listens on fails with.
const errConnRefused = syscall.ECONNREFUSED

// npConn is one flow's control connection to a netserver.
type npConn struct {
	c        net.Conn
	dataPort int
	omni     *npwire.OmniResponse  // nil for TCP_CC
	tcc      *npwire.TCPCCResponse // TCP_CC
	figs     *npwire.Figures
	raw      *npwire.OmniResults // omni: the results as netserver sent them
	err      error
}

// npDial opens a control connection to a netserver within timeout, naming
// what is wrong when nothing listens there.
func npDial(ctx context.Context, addr netip.AddrPort, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr.String())
	if err == nil {
		return c, nil
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return nil, npErrorf(addr.String(), "no answer from %s within %v (host down or filtered?)", addr, timeout)
	case errors.Is(err, errConnRefused):
		return nil, npErrorf(addr.String(), "nothing listens at %s (connection refused): start netserver -p %d there", addr, addr.Port())
	}
	return nil, npErrorf(addr.String(), "dial %s: %w", addr, err)
}

// npExchange sends m and reads the answer before deadline; first says it
// is the far end's first answer, which may show it is no netserver.
func npExchange(c net.Conn, addr string, m *npwire.Message, deadline time.Time, first bool) (*npwire.Message, error) {
	c.SetWriteDeadline(deadline)
	_, err := c.Write(m.Bytes())
	c.SetWriteDeadline(time.Time{})
	if err != nil {
		return nil, npErrorf(addr, "sending %s to %s: %w", npwire.Name(m.Type), addr, err)
	}
	if first {
		m, err := npwire.ReadFirstAnswer(c, addr, deadline)
		if err != nil {
			return nil, &NetserverError{Addr: addr, Err: err}
		}
		return m, nil
	}
	return npwire.ReadLaterAnswer(c, addr, "answer to "+npwire.Name(m.Type), deadline)
}

// npSysinfo asks the netserver of c what its machine is (DO_SYSINFO) and
// returns it as env() describes a machine, or nil when it says nothing
// (netperf 2.7's netserver answers "Deprecated").
func npSysinfo(c net.Conn, addr string, deadline time.Time) (*sysinfo.Info, error) {
	m, err := npExchange(c, addr, npwire.SysinfoRequest(), deadline, true)
	if err != nil {
		return nil, err
	}
	si, err := npwire.DecodeSysinfo(m)
	if err != nil {
		var se *npwire.ServerError
		if errors.As(err, &se) {
			return nil, nil // an older netserver: it says nothing of itself
		}
		return nil, err
	}
	if si.Deprecated() {
		return nil, nil
	}
	return &sysinfo.Info{OS: si.Sysname, Kernel: si.Release, KernelVersion: si.Version, Arch: si.Machine}, nil
}

// NetperfRequest is what a netperf command line asks of a netserver beyond
// the test's spec (package netperfcli): the fields of netperf's omni
// request that netscript's options do not carry, the socket options netperf
// sets on its own end only, where the data connection goes when it is not
// the control address, and netperf's passphrase.
type NetperfRequest struct {
	// Amend, if set, is called on each flow's DO_OMNI before it is sent.
	Amend func(r *npwire.OmniRequest)
	// Knobs are set on this end's data sockets (the test's own knobs
	// cannot be given against a netserver, which sets its end from the
	// request).
	Knobs sock.Knobs
	// DataAddr, if valid, is where the data connections go (netperf's
	// test-specific -H).
	DataAddr netip.Addr
	// Passphrase, if set, is sent first on each control connection, as
	// netperf's -Z sends it.
	Passphrase *string
}

// runNetserver runs the test s against the netserver at s.Host:s.Port.
func runNetserver(ctx context.Context, s spec.Spec, opt Options) (*result.Result, error) {
	ctrl, err := sock.Resolve(ctx, s.Host, s.Port, s.Family)
	if err != nil {
		return nil, &spec.OptionError{Option: "host", Err: err}
	}
	r := &run{spec: s, opt: opt, ctrl: ctrl}
	r.ready.TCPFastOpen = -1 // unknown: netserver does not say
	r.ready.Server.Version = "netserver"
	dataAddr := ctrl.Addr()
	if np := opt.Netperf; np != nil {
		if err := spec.CheckKnobs(s.Workload, &np.Knobs); err != nil {
			return nil, err
		}
		r.spec.Knobs = np.Knobs
		if np.DataAddr.IsValid() {
			dataAddr = np.DataAddr
		}
	}
	conns, err := npSetUp(ctx, &s, ctrl, &r.ready, opt.Netperf)
	defer func() {
		for _, c := range conns {
			c.c.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	// The data path toward the ports netserver gave, one per flow.
	r.spec.DataPorts, r.spec.DataPort = make([]int, len(conns)), 0
	for i, c := range conns {
		r.spec.DataPorts[i] = c.dataPort
	}
	w, t0, done, err := r.openFlows(ctx, dataAddr, conns[0].dataPort)
	if err != nil {
		return nil, err
	}
	defer done()
	lv := r.liveness() // the stall check; netserver sends no heartbeats
	lv.start = later(time.Now(), t0)
	stallErr := r.measure(ctx, w, nil, t0, lv)
	stalled, _ := stallErr.(*StallError)
	r.finish(w, stallErr)
	npMaertsEnd(&r.spec, w)
	return r.npEnd(ctx, w, conns, stalled, lv)
}

// npMaertsEnd ends a timed TCP_MAERTS against a netserver as netperf does:
// netserver's timer, started at its accept just before the client's
// interval began, closes the connection a little before the client's
// deadline, and that close is the end of the test (elapsed is then the
// last byte's time). A close before nine tenths of the test is still the
// server's failure.
func npMaertsEnd(s *spec.Spec, w *worker) {
	if !s.Workload.ServerSends || s.Duration <= 0 || s.Bytes > 0 {
		return
	}
	for _, f := range w.flows {
		l := f.base()
		if l == nil || !workload.PeerClosed(l.Err) {
			continue
		}
		if l.Result.Elapsed >= s.Duration*9/10 {
			l.Err = nil
		}
	}
}

// npSetUp opens every flow's control connection, asks the first for
// netserver's DO_SYSINFO and sends each flow's request; rd gets what the
// first flow's netserver granted. It returns the connections opened, for
// the caller to close, also on an error.
func npSetUp(ctx context.Context, s *spec.Spec, ctrl netip.AddrPort, rd *proto.Ready, np *NetperfRequest) ([]*npConn, error) {
	nf := npwire.FamilyToNF(familyOf(ctrl.Addr()))
	addr := ctrl.String()
	n := s.FlowCount()
	conns := make([]*npConn, 0, n)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return conns, err
		}
		c, err := npDial(ctx, ctrl, s.ConnectTimeout)
		if err != nil {
			return conns, npFlowErr(i, n, err)
		}
		nc := &npConn{c: c}
		conns = append(conns, nc)
		deadline := time.Now().Add(s.ConnectTimeout)
		if np != nil && np.Passphrase != nil {
			if err := npPassphrase(c, addr, *np.Passphrase, deadline); err != nil {
				return conns, npFlowErr(i, n, err)
			}
		}
		if i == 0 {
			env, err := npSysinfo(c, addr, deadline)
			if err != nil {
				return conns, err
			}
			rd.Server.Env = env
		}
		if err := nc.setUp(s, i, nf, addr, deadline, np); err != nil {
			return conns, npFlowErr(i, n, err)
		}
	}
	rd.DataPort = conns[0].dataPort
	conns[0].granted(rd)
	return conns, nil
}

// npEnd ends a test against netservers after its loops: end-of-test
// datagrams while waiting, what a sending netserver sent past the
// interval, every flow's results, and the result.
func (r *run) npEnd(ctx context.Context, w *worker, conns []*npConn, stalled *StallError, lv *liveness) (*result.Result, error) {
	stopMarkers := npMarkers(w)
	var drained uint64
	if w.kind.ServerSends && stalled == nil {
		// netserver sends a second past the interval, then closes.
		drained = w.drainAfterStop(drainTimeout + time.Second)
	}
	wait := npResultsWait(&r.spec)
	if stalled != nil {
		wait = min(wait, lv.bound) // a stalled path may never let netserver finish
	}
	unwait := context.AfterFunc(ctx, func() {
		for _, c := range conns {
			c.c.Close() // cancelled: no more waiting for results (a deadline could be set again)
		}
	})
	npResults(conns, &r.spec, time.Now().Add(wait))
	unwait()
	stopMarkers()
	res := r.build(w)
	res.Drained = drained
	if d := r.opt.Detail; d != nil && len(conns) > 0 {
		d.NetserverResponse, d.NetserverResults = conns[0].omni, conns[0].raw
	}
	var rerr error
	for i, c := range conns {
		if c.err != nil {
			rerr = npFlowErr(i, len(conns), c.err)
			break
		}
	}
	switch {
	case rerr == nil:
		r.npRemote(res, conns)
	case ctx.Err() != nil:
		r.figures(res, w) // interrupted: what was measured, without netserver's counts
		return res, r.outcome(ctx, res, stalled, w.firstErr())
	case stalled == nil:
		return r.fail(res, w, nil, rerr)
	}
	r.figures(res, w)
	note := npNote
	if r.ready.Server.Env == nil {
		note += "; its DO_SYSINFO tells nothing of its machine (netperf 2.7 answers \"Deprecated\"), so the record has no server_env"
	}
	res.Notes = append(res.Notes, note)
	return res, r.outcome(ctx, res, stalled, w.firstErr())
}

// npNote says which figures a netserver cannot give.
const npNote = NoteNetserver + "accepts, errors, peers, its TCP_INFO (remote.tcp), its threads' CPU or Fast Open on its side; remote.elapsed is its own clock"

// npFlowErr names the flow of a test of several.
func npFlowErr(i, n int, err error) error {
	if n > 1 {
		return &spec.FlowError{Flow: i, Flows: n, Err: err}
	}
	return err
}

// setUp sends flow i's request and reads netserver's response.
func (nc *npConn) setUp(s *spec.Spec, i int, nf uint32, addr string, deadline time.Time, np *NetperfRequest) error {
	local := 0
	if _, p := s.LocalFor(i); p > 0 {
		local = p
	}
	if s.Workload.NetperfClassic == npwire.TypeDoTCPCC {
		m, err := npExchange(nc.c, addr, tccRequest(s, i, nf), deadline, i > 0)
		if err != nil {
			return err
		}
		if err := npwire.CheckResponse(m, npwire.TypeDoTCPCC, npwire.TypeTCPCCResponse); err != nil {
			return npSetupErr(err, addr)
		}
		nc.tcc = npwire.DecodeTCPCCResponse(m)
		nc.dataPort = int(nc.tcc.DataPort)
	} else {
		req := omniRequest(s, i, nf, local)
		if np != nil && np.Amend != nil {
			q := npwire.DecodeOmniRequest(req)
			np.Amend(q)
			req = q.Message(req.Word2)
		}
		m, err := npExchange(nc.c, addr, req, deadline, i > 0)
		if err != nil {
			return err
		}
		if err := npwire.CheckResponse(m, npwire.TypeDoOmni, npwire.TypeOmniResponse); err != nil {
			return npSetupErr(err, addr)
		}
		nc.omni = npwire.DecodeOmniResponse(m)
		nc.dataPort = int(nc.omni.DataPort)
	}
	if nc.dataPort <= 0 || nc.dataPort > 65535 {
		return npErrorf(addr, "%s gave data port %d, which is no port", addr, nc.dataPort)
	}
	if want := s.DataPortFor(i); want != 0 && nc.dataPort != want {
		return spec.Bad("data_port", "netserver at %s listens on %d, not on the %d asked for", addr, nc.dataPort, want)
	}
	return nil
}

// npPassphrase sends netperf's PASSPHRASE request, which netserver
// answers with nothing (and closes the connection if it is wrong).
func npPassphrase(c net.Conn, addr, pass string, deadline time.Time) error {
	m := &npwire.Message{Type: npwire.TypePassphrase}
	m.SetString(0, npwire.PassphraseLen, pass)
	c.SetWriteDeadline(deadline)
	_, err := c.Write(m.Bytes())
	c.SetWriteDeadline(time.Time{})
	if err != nil {
		return npErrorf(addr, "sending the passphrase to %s: %w", addr, err)
	}
	return nil
}

// npSetupErr explains a refused request.
func npSetupErr(err error, addr string) error {
	var se *npwire.ServerError
	if errors.As(err, &se) && se.Errno == npwire.UnknownRequest {
		return npErrorf(addr, "the netserver at %s does not know %s (errno 998): "+
			"a netserver of another version (before 2.5, or built without the omni tests); netscript speaks to netperf 2.7's", addr, se.What)
	}
	return npErrorf(addr, "%s: %w", addr, err)
}

// granted puts what the netserver granted into Ready's terms.
func (nc *npConn) granted(rd *proto.Ready) {
	if o := nc.omni; o != nil {
		rd.Buffers.Send, rd.Buffers.Recv = int(max(o.SendBufSize, 0)), int(max(o.RecvBufSize, 0))
		rd.SendSize, rd.RecvSize = int(int32(o.SendSize)), int(int32(o.RecvSize))
		rd.SendSize, rd.RecvSize = max(rd.SendSize, 0), max(rd.RecvSize, 0)
	} else if t := nc.tcc; t != nil {
		rd.Buffers.Send, rd.Buffers.Recv = int(max(t.SendBufSize, 0)), int(max(t.RecvBufSize, 0))
	}
}

// npResults reads every flow's results, each before deadline, at once.
func npResults(conns []*npConn, s *spec.Spec, deadline time.Time) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			addr := c.c.RemoteAddr().String()
			m, err := npwire.ReadLaterAnswer(c.c, addr, "results", deadline)
			if err != nil {
				c.err = &NetserverError{Addr: addr, Err: err}
				return
			}
			if c.tcc != nil {
				c.figs, c.err = npwire.TCPCCFigures(m, s.CPUUtil && c.tcc.MeasureCPU != 0)
			} else {
				// Only a netserver that said it measures its CPU has CPU
				// words that are not garbage.
				c.figs, c.err = npwire.OmniFigures(m, s.CPUUtil && c.omni.Flags&npwire.OmniMeasureCPU != 0)
				if c.err == nil {
					c.raw = npwire.DecodeOmniResults(m)
				}
			}
			// As netperf: half-close the control connection; netserver
			// closes its side when it has nothing more to do.
			if tc, ok := c.c.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
		})
	}
	wg.Wait()
}

// npMarkers sends every datagram flow's end-of-test marker (a zero-length
// datagram, which ends netserver's loop) until the returned function is
// called: a marker can be lost like any datagram, so one goes every
// 100 ms while the client waits for the results.
func npMarkers(w *worker) (stop func()) {
	if !w.kind.Datagram {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			for _, f := range w.flows {
				if f.fd >= 0 {
					sock.SendEmpty(f.fd)
				}
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// npRemote puts the netservers' counts into the result: each flow's own,
// and their sum (the longest elapsed time) as remote.
func (r *run) npRemote(res *result.Result, conns []*npConn) {
	rem := &result.Remote{Errors: map[string]uint64{}, Unreported: []string{"accepts", "errors", "peers"}}
	var util float64
	var ncpu, measured int
	why := ""
	for i, c := range conns {
		f := c.figs
		rem.Add(&result.Remote{Transactions: f.Transactions, BytesSent: f.BytesSent, BytesReceived: f.BytesReceived,
			SendCalls: f.SendCalls, RecvCalls: f.RecvCalls, Elapsed: f.Elapsed})
		if i < len(res.Flows) {
			res.Flows[i].Remote = &result.FlowRemote{Transactions: f.Transactions, BytesSent: f.BytesSent,
				BytesReceived: f.BytesReceived, RecvCalls: f.RecvCalls, SendCalls: f.SendCalls}
		}
		if f.CPU != nil {
			// Every flow's netserver measured the same machine.
			util += f.CPU.Util
			ncpu = f.CPU.NumCPU
			measured++
		} else if f.CPUWhy != "" {
			why = f.CPUWhy
		}
	}
	res.Remote = rem
	r.npTCP(res)
	if len(conns) > 0 {
		// The first flow's, as this end's (netserver reports them for
		// omni tests only; 0 otherwise).
		res.Config.RemoteSendBufferEnd, res.Config.RemoteRecvBufferEnd = conns[0].figs.SendBuf, conns[0].figs.RecvBuf
	}
	if measured == 0 && why != "" {
		res.Notes = append(res.Notes, NoteRemoteCPUUnreported+why)
	}
	if measured > 0 {
		r.remoteCPU = &proto.CPUReport{Util: util / float64(measured), NumCPU: ncpu, ThreadNs: -1,
			ElapsedNs: int64(rem.Elapsed * 1e9)}
	}
	res.Config.RemoteCPUAffinity = nil
}
