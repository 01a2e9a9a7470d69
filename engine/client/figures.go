package client

import (
	"fmt"
	"strings"
	"time"

	"netscript/engine/cpu"
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/sysinfo"
	"netscript/engine/workload"
)

// portNote explains connects that failed for want of a source port:
// TCP_CRR opens a connection per transaction and the kernel (or the port
// walk) ran out of free ports for the 4-tuple.
func portNote(s *spec.Spec, errs map[string]uint64) string {
	n := errs["EADDRNOTAVAIL"] + errs["EADDRINUSE"]
	msg := fmt.Sprintf("%d connects failed for want of a free source port (errors EADDRNOTAVAIL, EADDRINUSE) and were retried: "+
		"each transaction of %s takes a new port, and a port stays taken while its connection (or, on the side that "+
		"closes first, its TIME_WAIT) lasts", n, s.Workload.Name)
	if r := s.LocalPortRange; r != nil {
		msg += fmt.Sprintf("; the walk over local_ports (%d, %d) has %d ports for %d flows", r.Lo, r.Hi, r.Len(), s.FlowCount())
	} else {
		msg += "; see net.ipv4.ip_local_port_range, or spread the flows over more source addresses (local=[...])"
	}
	return msg
}

// cpuRun is the client's system-wide CPU measurement over the measured
// interval (netperf's -c).
type cpuRun struct {
	on      bool
	start   cpu.Snapshot
	t0      time.Time
	util    cpu.Utilization
	elapsed time.Duration
	err     error
}

func (c *cpuRun) begin(on bool) {
	c.on = on
	if on {
		c.start, c.err = cpu.SystemSnapshot()
		c.t0 = time.Now()
	}
}

func (c *cpuRun) end() {
	if !c.on || c.err != nil {
		return
	}
	end, err := cpu.SystemSnapshot()
	c.elapsed = time.Since(c.t0)
	if err != nil {
		c.err = err
		return
	}
	c.util, c.err = cpu.SystemUtilization(c.start, end)
}

// figures completes a result with what needs both ends' counts: stream
// throughput from the receiver's count, UDP loss, Fast Open, CPU
// utilisation and service demand, and the notes that explain them.
func (r *run) figures(res *result.Result, w *worker) {
	if r.bidir[0] != nil {
		r.figuresBidir(res, w)
		return
	}
	res.Throughput = r.throughput(res)
	if w.kind.Bulk && w.kind.Datagram {
		r.udpFigures(res, w)
	}
	if r.spec.FastOpen {
		r.fastOpenFigures(res, w)
	}
	if errs := res.Errors; errs["EADDRNOTAVAIL"]+errs["EADDRINUSE"] > 0 && w.kind.PerTransaction {
		res.Notes = append(res.Notes, portNote(&r.spec, errs))
	}
	if r.spec.CPUUtil {
		r.cpuFigures(res, w)
	}
	if r.spec.NoControl {
		note := "no control connection (netperf -N): the server's counts, CPU and buffers are unknown, so the remote figures are not given"
		if r.spec.Workload.ClientSends() {
			note += "; throughput counts what was sent, as netperf -N does"
		}
		res.Notes = append(res.Notes, note)
	}
	noteCensored(res)
}

// udpFigures fills result.udp: what the client sent and, from the server's
// count, what arrived and what was lost.
func (r *run) udpFigures(res *result.Result, w *worker) {
	u := &result.UDP{}
	for _, f := range w.flows {
		u.Sent += f.counts().SendCalls
		u.Refused += f.counts().Refused
	}
	if res.Remote != nil {
		got := res.Remote.RecvCalls
		lost := int64(u.Sent) - int64(got)
		pct := 0.0
		if u.Sent > 0 {
			pct = 100 * float64(lost) / float64(u.Sent)
		}
		u.Received, u.Lost, u.LossPct = &got, &lost, &pct
	}
	res.UDP = u
}

// fastOpenFigures fills result.fastopen from each connection's TCP_INFO and
// the server's count, and says in plain words when Fast Open could not work.
func (r *run) fastOpenFigures(res *result.Result, w *worker) {
	var c workload.FastOpenCounts
	for _, fl := range w.flows {
		c.Add(&fl.counts().FastOpen)
	}
	f := &result.FastOpen{
		Attempted: c.Attempted, Accepted: c.Accepted, CookieRequests: c.CookieRequests,
		Fallbacks: c.NotAcked, SynRetransmits: c.SynRetransmitted, Unknown: c.Unknown,
	}
	if v := sysinfo.FastOpen(); v >= 0 {
		f.ClientSysctl = &v
	}
	if res.Remote != nil && !r.spec.Netserver() { // netserver does not count them
		n := r.remoteFastOpen
		f.ServerAccepted = &n
	}
	if r.pc != nil && r.ready.TCPFastOpen >= 0 {
		v := r.ready.TCPFastOpen
		f.ServerSysctl = &v
	}
	switch {
	case f.ClientSysctl != nil && *f.ClientSysctl&1 == 0:
		f.Note = fmt.Sprintf("this machine's kernel does not allow TCP Fast Open on the client side "+
			"(net.ipv4.tcp_fastopen=%d lacks bit 1); set it to 1 or 3", *f.ClientSysctl)
	case f.ServerSysctl != nil && *f.ServerSysctl&2 == 0:
		f.Note = fmt.Sprintf("the server's kernel does not accept TCP Fast Open: its net.ipv4.tcp_fastopen is %d, "+
			"without the server bit (2), so its listener ignored the Fast Open option and no request rode in a SYN "+
			"(%d of %d accepted; %d SYNs only asked for a cookie). Each connection made the same system calls as "+
			"without Fast Open (a sendto with MSG_FASTOPEN that only sends the SYN, then the request), so any "+
			"change in speed is not Fast Open's. Set net.ipv4.tcp_fastopen=3 on the server to use it",
			*f.ServerSysctl, f.Accepted, f.Attempted, f.CookieRequests)
	case f.Accepted == 0 && f.Attempted > 1 && f.ServerSysctl == nil:
		why := "without a control connection"
		if r.spec.Netserver() {
			why = "(netserver does not tell it)"
		}
		f.Note = fmt.Sprintf("no request rode in a SYN (%d of %d connections only asked for a cookie); "+
			"the server's net.ipv4.tcp_fastopen is unknown %s, and it needs bit 2 to accept Fast Open",
			f.CookieRequests, f.Attempted, why)
	case f.Accepted == 0 && f.Attempted > 1:
		f.Note = fmt.Sprintf("no request rode in a SYN although both kernels allow TCP Fast Open "+
			"(%d cookie requests, %d fallbacks, %d SYN retransmissions of %d connections)",
			f.CookieRequests, f.Fallbacks, f.SynRetransmits, f.Attempted)
	}
	if f.Note != "" {
		res.Notes = append(res.Notes, "fastopen: "+f.Note)
	}
	res.FastOpen = f
}

// work is the local work count service demand divides by, and whether it
// is in transactions (else bytes, sent plus received, as netperf counts).
func (r *run) work(res *result.Result) (uint64, bool) {
	if r.spec.Workload.RR() {
		return res.Transactions, true
	}
	return res.BytesSent + res.BytesReceived, false
}

// cpuFigures fills the utilisation and service demand fields.
func (r *run) cpuFigures(res *result.Result, w *worker) {
	n, perTrans := r.work(res)
	res.SDUnits = "usec/KB"
	if perTrans {
		res.SDUnits = "usec/Tran"
	}
	rate := 0.0
	if res.Elapsed > 0 {
		rate = float64(n) / res.Elapsed
	}
	demand := func(util float64, ncpu int) *float64 {
		var v float64
		var err error
		if perTrans {
			v, err = cpu.DemandPerTransaction(util, ncpu, rate)
		} else {
			v, err = cpu.DemandPerKB(util, ncpu, rate)
		}
		if err != nil {
			return nil
		}
		return &v
	}
	timeDemand := func(t time.Duration) *float64 {
		var v float64
		var err error
		if perTrans {
			v, err = cpu.CPUTimePerTransaction(t, int64(n))
		} else {
			v, err = cpu.CPUTimePerKB(t, int64(n))
		}
		if err != nil {
			return nil
		}
		return &v
	}
	if c := &r.cpu; c.err == nil && c.util.NumCPU > 0 {
		util, ncpu := c.util.Percent, c.util.NumCPU
		proc := percentOf(w.threadTime, c.elapsed, ncpu)
		res.LocalCPU, res.LocalCPUCount, res.LocalProcCPU = &util, &ncpu, &proc
		res.LocalSD, res.LocalProcSD = demand(util, ncpu), timeDemand(w.threadTime)
	} else if c.err != nil {
		res.Notes = append(res.Notes, "cpu_util: the local CPU could not be measured: "+c.err.Error())
	}
	if rc := r.remoteCPU; rc != nil && rc.NumCPU > 0 {
		util, ncpu := rc.Util, rc.NumCPU
		res.RemoteCPU, res.RemoteCPUCount = &util, &ncpu
		res.RemoteSD = demand(util, ncpu)
		if rc.ThreadNs >= 0 { // a netserver does not measure its threads (-1)
			thread := time.Duration(rc.ThreadNs)
			proc := percentOf(thread, time.Duration(rc.ElapsedNs), ncpu)
			res.RemoteProcCPU, res.RemoteProcSD = &proc, timeDemand(thread)
		}
	} else if res.Remote != nil && !hasNote(res.Notes, NoteRemoteCPUUnreported) {
		res.Notes = append(res.Notes, "cpu_util: the server did not report its CPU")
	}
}

// percentOf expresses CPU time t as a percentage of what ncpu CPUs could
// give over elapsed, within [0, 100].
func percentOf(t, elapsed time.Duration, ncpu int) float64 {
	if elapsed <= 0 || ncpu <= 0 {
		return 0
	}
	p := 100 * t.Seconds() / (elapsed.Seconds() * float64(ncpu))
	switch {
	case p > 100:
		return 100
	case p >= 0:
		return p
	}
	return 0
}

// hasNote reports whether a note starting with prefix was made.
func hasNote(notes []string, prefix string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}
