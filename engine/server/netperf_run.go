package server

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"netscript/engine/cpu"
	"netscript/engine/npwire"
	"netscript/engine/proto"
	"netscript/engine/workload"
)

// npCPURate is the calibrated rate netserver reports when it measures the
// CPU with /proc/stat, which needs no calibration.
const npCPURate = 100

// npNumCPUs is the CPU count netserver reports.
func npNumCPUs() int { return runtime.NumCPU() }

// runNetperf runs one admitted netperf test on the control connection c:
// the response, the data path until netperf's end-of-test signal (or
// netserver's timer), then the results. chosen is the data port the server
// chose for the connection's last test; it returns the one it chose for
// this one (-1: none). An error ends the control connection.
func (s *Server) runNetperf(c net.Conn, peer string, client netip.Addr, p *npPlan, chosen int) (int, error) {
	local, ok := netip.AddrFromSlice(c.LocalAddr().(*net.TCPAddr).IP)
	if !ok {
		return -1, errors.New("cannot tell the control connection's local address")
	}
	if a := p.announced(); p.w.Datagram && a.IsValid() && a.Unmap() != client.Unmap() {
		// A UDP test's answers go where its datagrams come from: only to
		// the address that asked for it, never to one a request names.
		err := fmt.Errorf("the request names %s as netperf's data address, not its control connection's %s: "+
			"netscript sends a netperf test's data only to the address that asked for it", a, client)
		s.npRefuse(c, peer, p.request(), &npError{errno: npEINVAL, err: err})
		return -1, nil
	}
	t, err := s.newTest(p.w, &p.setup, local.Unmap(), guard{client: client, netperf: true, anySource: s.cfg.NetperfAnySource})
	if err != nil {
		s.npRefuse(c, peer, p.request(), &npError{errno: npBudgetErrno(err), err: err})
		return -1, nil
	}
	if p.setup.DataPort == 0 || p.setup.DataPort == chosen {
		chosen = t.port
	} else {
		chosen = -1
	}
	err = s.runNetperfTest(c, peer, p, t)
	return chosen, err
}

// announced is the data source address a request names, if any (the
// zero Addr if none): netperf puts its data socket's address in UDP
// requests (netperf_ip), not in TCP ones.
func (p *npPlan) announced() netip.Addr {
	if p.omni == nil {
		return netip.Addr{}
	}
	ip := p.omni.NetperfIP
	var a netip.Addr
	switch p.omni.IPFamily {
	case npwire.NFInet:
		a = netip.AddrFrom4([4]byte{byte(ip[0] >> 24), byte(ip[0] >> 16), byte(ip[0] >> 8), byte(ip[0])})
	case npwire.NFInet6:
		var b [16]byte
		for i, w := range ip {
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
		}
		a = netip.AddrFrom16(b)
	}
	if !a.IsValid() || a.IsUnspecified() {
		return netip.Addr{}
	}
	return a
}

// runNetperfTest runs the test t set up for p and sends its results.
func (s *Server) runNetperfTest(c net.Conn, peer string, p *npPlan, t *test) error {
	hs := s.lim.HandshakeTimeout
	var once sync.Once
	closeTest := func() { once.Do(t.close) }
	defer closeTest()
	if err := npwire.Write(c, p.response(t), hs); err != nil {
		return err
	}
	if err := t.start(time.Now().Add(hs)); err != nil {
		s.np.vanished.Add(1)
		return fmt.Errorf("no data connection: %w", err)
	}
	var cpu0 cpu.Snapshot
	var cpuErr error
	if p.cpu {
		cpu0, cpuErr = cpu.SystemSnapshot()
	}
	gone, unwatch := watchControl(c)
	timer := time.NewTimer(p.timer)
	defer timer.Stop()
	// With a padded timer the measured interval ends at the test's
	// length, not the timer's: the CPU is read then, not after the idle
	// pad (a TCP_CRR test netserver's timer ends).
	var measured <-chan time.Time
	if p.cpu && p.pad > 0 {
		mt := time.NewTimer(p.timer - p.pad)
		defer mt.Stop()
		measured = mt.C
	}
	var util cpu.Utilization
	cpuRead := false
	cpuEnd := func() {
		if !p.cpu || cpuRead || cpuErr != nil {
			return
		}
		cpuRead = true
		var cpu1 cpu.Snapshot
		if cpu1, cpuErr = cpu.SystemSnapshot(); cpuErr == nil {
			util, cpuErr = cpu.SystemUtilization(cpu0, cpu1)
		}
	}
	timedOut, vanished := false, false
wait:
	for {
		select {
		case <-measured:
			cpuEnd()
			continue
		case <-t.done: // netperf's end of test: the data connection closed, an empty datagram
		case <-timer.C: // netserver's own timer
			timedOut = true
		case <-gone:
			vanished = true
		case <-s.ctx.Done():
			vanished = true
		}
		break wait
	}
	cpuEnd()
	res := t.stop()
	t.mu.Lock()
	counts, bufs, affinity := t.counts, t.npBufs, t.affinity
	t.mu.Unlock()
	if bufs == (proto.Buffers{}) {
		bufs = t.buffers // an endpoint's test: its socket's
	}
	if k := counts.Strangers + t.strangers.Load(); k > 0 {
		s.np.strangers.Add(k)
		s.log.Printf("%s: %s: refused %d data connections or datagrams from addresses other than the client's", peer, p.w, k)
	}
	closeTest() // before the results: netperf's next iteration (-i) binds the same port
	if garbage := unwatch(); vanished || garbage != nil {
		s.np.vanished.Add(1)
		if garbage != nil {
			return fmt.Errorf("during the test: %w", garbage)
		}
		return errors.New("the client went away during the test")
	}
	elapsed := time.Duration(res.ElapsedNs)
	if timedOut && p.pad > 0 {
		elapsed = max(elapsed-p.pad, 0)
	}
	cpuPct := -1.0
	if p.cpu && cpuErr == nil {
		cpuPct = util.Percent
	} else if p.cpu {
		s.log.Printf("%s: CPU utilisation: %v", peer, cpuErr)
		util = cpu.Utilization{}
	}
	r := npResult{counts: &counts, elapsed: elapsed, util: &util, cpu: p.cpu && cpuErr == nil, buffers: bufs}
	rep := NetperfReport{Test: p.w.Netperf, Peer: peer, Transactions: counts.Transactions, BytesSent: counts.BytesSent,
		BytesReceived: counts.BytesReceived, Elapsed: elapsed, CPUUtil: cpuPct, Affinity: affinity}
	s.np.tests.Add(1)
	s.log.Printf("%s: %s: %d transactions, %d bytes received, %d sent in %.3f s", peer, p.w,
		rep.Transactions, rep.BytesReceived, rep.BytesSent, elapsed.Seconds())
	if s.cfg.OnNetperf != nil {
		s.cfg.OnNetperf(rep)
	}
	return npwire.Write(c, p.results(&r), hs)
}

// npBudgetErrno is the errno of a test the daemon could not set up: EBUSY
// for the thread budget, else EINVAL.
func npBudgetErrno(err error) int32 {
	var be *workload.BudgetError
	if errors.As(err, &be) {
		return npEBUSY
	}
	return npEINVAL
}

// watchControl watches the control connection while a test runs: netperf
// sends nothing then, so a read that returns means the client went away
// (gone is closed). unwatch ends the watch and returns what the read saw
// if it was not the end of the watch: the connection's end, or bytes
// where none belong.
func watchControl(c net.Conn) (gone <-chan struct{}, unwatch func() error) {
	ch := make(chan struct{})
	var seen error
	go func() {
		defer close(ch)
		var b [1]byte
		n, err := c.Read(b[:])
		switch {
		case n > 0:
			seen = errors.New("the client sent on the control connection during the test")
		case errors.Is(err, os.ErrDeadlineExceeded):
		case err != nil:
			seen = fmt.Errorf("control connection: %w", err)
		}
	}()
	return ch, func() error {
		c.SetReadDeadline(time.Now())
		<-ch
		c.SetReadDeadline(time.Time{})
		return seen
	}
}

// npResult is what the results of a netperf test are made from.
type npResult struct {
	counts  *workload.ServerCounts
	elapsed time.Duration
	util    *cpu.Utilization
	cpu     bool
	buffers proto.Buffers
}

// request is a stand-in for the request a plan came from, for refusals.
func (p *npPlan) request() *npwire.Message {
	if p.cc != nil {
		return &npwire.Message{Type: npwire.TypeDoTCPCC}
	}
	return &npwire.Message{Type: npwire.TypeDoOmni}
}

// response is the answer to the request, as netserver fills it: the
// buffers and sizes in use, the data port, and whether the CPU is measured.
func (p *npPlan) response(t *test) *npwire.Message {
	rate := float32(0)
	if p.cpu {
		rate = npCPURate
	}
	if p.cc != nil {
		r := &npwire.TCPCCResponse{RecvBufSize: int32(t.buffers.Recv), SendBufSize: int32(t.buffers.Send),
			DataPort: int32(t.port), CPURate: rate, TestLength: p.cc.TestLength}
		if p.setup.NoDelay {
			r.NoDelay = 1
		}
		if p.cpu {
			r.MeasureCPU = 1
		}
		return r.Message(0)
	}
	q := p.omni
	r := &npwire.OmniResponse{RecvBufSize: int32(t.buffers.Recv), SendBufSize: int32(t.buffers.Send),
		RecvSize: q.RecvSize, RecvWidth: int32(q.RecvWidth), SendSize: q.SendSize, SendWidth: int32(q.SendWidth),
		CPURate: rate, DataPort: uint32(t.port), SoRcvAvoid: q.SoRcvAvoid, SoSndAvoid: q.SoSndAvoid,
		IntervalBurst: q.IntervalBurst, IntervalUsecs: q.IntervalUsecs, SocketPrio: q.SocketPrio, SocketTOS: q.SocketTOS}
	switch {
	case p.w.Messages:
		r.RecvSize, r.SendSize = uint32(p.reqSize), uint32(p.rspSize)
	case p.w.ServerSends:
		r.SendSize = uint32(t.sendSize)
	case p.w.Bulk:
		r.RecvSize = uint32(t.recvSize)
	}
	if p.setup.NoDelay {
		r.Flags |= npwire.OmniNoDelay
	}
	if p.cpu {
		r.Flags |= npwire.OmniMeasureCPU
	}
	p.npResponseSizes(r, t)
	p.resp = r
	return r.Message(0)
}

// results is the results message: what the server counted, as netserver
// counts it (an RR test's calls are its transactions).
func (p *npPlan) results(r *npResult) *npwire.Message {
	c := r.counts
	recvCalls, sendCalls := c.RecvCalls, c.SendCalls
	if p.w.RR() {
		recvCalls, sendCalls = c.Transactions, c.Transactions
	}
	util := float32(-1)
	if r.cpu {
		util = float32(r.util.Percent)
	}
	if p.cc != nil {
		return (&npwire.TCPCCResults{BytesReceived: uint32(c.BytesReceived), RecvCalls: uint32(recvCalls),
			TransReceived: uint32(c.Transactions), ElapsedTime: float32(r.elapsed.Seconds()), CPUUtil: util, ServDem: -1,
			CPUMethod: npwire.ProcStat, NumCPUs: int32(npNumCPUs())}).Message(0)
	}
	res := &npwire.OmniResults{BytesReceived: c.BytesReceived, RecvCalls: uint32(recvCalls), RecvBufSize: int32(r.buffers.Recv),
		BytesSent: c.BytesSent, SendCalls: uint32(sendCalls), SendBufSize: int32(r.buffers.Send),
		TransReceived: uint32(c.Transactions), ElapsedTime: float32(r.elapsed.Seconds()), CPUUtil: util, ServDem: -1,
		CPUMethod: npwire.ProcStat, NumCPUs: uint32(npNumCPUs()), PeakCPUID: -1, TransportRetrans: -1}
	if r.cpu {
		m := r.util.Mean
		res.CPUPercentUser, res.CPUPercentSystem = float32(m.User), float32(m.System)
		res.CPUPercentIOWait, res.CPUPercentIRQ, res.CPUPercentSWIntr = float32(m.IOWait), float32(m.IRQ), float32(m.SoftIRQ)
		res.PeakCPUID, res.PeakCPUUtil = int32(r.util.Peak.CPU), float32(r.util.Peak.Busy)
		if r.util.NumCPU > 0 {
			res.NumCPUs = uint32(r.util.NumCPU)
		}
	}
	if !p.w.Datagram {
		res.CongControl = tcpCongestion()
	}
	if p.resp != nil {
		p.npResultsFigures(res, r, p.resp)
	}
	return res.Message(0)
}

// tcpCongestion is the system's TCP congestion control, which netserver
// reports of its data connection.
func tcpCongestion() string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
