package netperfcli

import (
	"math"

	"netscript/engine/client"
	"netscript/engine/cpu"
	"netscript/engine/hist"
	"netscript/engine/npwire"
	"netscript/engine/result"
)

// Figures are netperf's variables once the test ran, which its tables
// and selectors print: the means over the iterations of what netperf
// averages (retrieve_confident_values), the last iteration's counts and
// sizes, and -1 (or netperf's other placeholders) for what was not
// measured.
type Figures struct {
	Last *result.Result // the last iteration
	it   *iteration

	// Means over the iterations.
	Elapsed, Thruput                       float64
	LocalCPU, RemoteCPU, LocalSD, RemoteSD float64

	// The last iteration's.
	TransRate, RTTLatency                   float64
	Local, Remote                           cpuStats
	LocalSendThru, LocalRecvThru            float64
	RemoteSendThru, RemoteRecvThru          float64
	Latency                                 latency
	Hist                                    *hist.Histogram // every iteration's (netperf keeps one); nil for streams
	Iterations                              int
	ResultConfid, LocalConfid, RemoteConfid float64 // -1 without -i/-I
	IntervalPct                             float64 // -1 without -i/-I
	Met                                     bool
}

// cpuStats is one end's CPU as netperf's selectors print it.
type cpuStats struct {
	Util, User, System, IOWait, IRQ, SWIntr float64
	PeakUtil                                float64
	PeakID, NumCPUs                         int
	Method                                  byte // 'S' measured from /proc/stat, 'U' not
}

// latency is the histogram's statistics as netperf keeps them: whole
// microseconds for the extremes and percentiles; -1 when none were kept.
type latency struct {
	Min, Max, P50, P90, P99 int
	Mean, Stddev            float64
}

// iteration is one run's result and what the engine read beside it.
type iteration struct {
	r *result.Result
	d client.Detail
}

// figures computes the output's figures from the iterations run.
func (c *Command) figures(its []*iteration) *Figures {
	last := its[len(its)-1]
	f := &Figures{Last: last.r, it: last, Iterations: len(its), ResultConfid: -1, LocalConfid: -1, RemoteConfid: -1,
		IntervalPct: -1, Met: true}
	n := float64(len(its))
	for _, it := range its {
		v := c.iterFigures(it)
		f.Elapsed += v.elapsed / n
		f.Thruput += v.thruput / n
		f.LocalCPU += v.localCPU / n
		f.RemoteCPU += v.remoteCPU / n
		f.LocalSD += v.localSD / n
		f.RemoteSD += v.remoteSD / n
		if it == last {
			f.TransRate, f.RTTLatency = v.transRate, v.rtt
		}
	}
	r := last.r
	el := r.Elapsed
	f.LocalSendThru = c.thruMbits(float64(r.BytesSent), el)
	f.LocalRecvThru = c.thruMbits(float64(r.BytesReceived), el)
	rs, rr := c.remoteBytes(last)
	f.RemoteSendThru, f.RemoteRecvThru = c.thruMbits(float64(rs), el), c.thruMbits(float64(rr), el)
	f.Local, f.Remote = c.localStats(last), c.remoteStats(last)
	f.Latency = latency{-1, -1, -1, -1, -1, -1, -1}
	if c.Test.Omni && c.Test.Direction&dirRecv != 0 && c.Test.Direction&dirXmit != 0 {
		f.Hist = mergeHists(its)
		if f.Hist != nil && f.Hist.Count() > 0 {
			l := result.LatencyOf(f.Hist)
			f.Latency = latency{int(l.Min), int(l.Max), int(l.P50), int(l.P90), int(l.P99), l.Mean, l.Stddev}
		}
	} else if c.isCC() || c.TestName == "TCP_CC" {
		f.Hist = mergeHists(its)
	}
	return f
}

// iterValues are what netperf computes at the end of each iteration.
type iterValues struct {
	elapsed, thruput                       float64
	localCPU, remoteCPU, localSD, remoteSD float64
	transRate, rtt                         float64
}

// iterFigures computes one iteration's figures as send_omni_inner does.
func (c *Command) iterFigures(it *iteration) iterValues {
	r := it.r
	v := iterValues{elapsed: r.Elapsed, localCPU: -1, remoteCPU: -1, localSD: -1, remoteSD: -1, transRate: 1, rtt: -1}
	rs, rr := c.remoteBytes(it)
	remoteXferd := float64(rs + rr)
	if c.NoControl {
		remoteXferd = float64(r.BytesSent)
	}
	localXferd := float64(r.BytesSent + r.BytesReceived)
	trans := float64(r.Transactions)
	switch {
	case c.perTrans() && r.Elapsed > 0:
		v.thruput = trans / r.Elapsed
	case c.Test.Direction == dirRecv:
		v.thruput = c.calcThruput(localXferd, r.Elapsed)
	default:
		v.thruput = c.calcThruput(remoteXferd, r.Elapsed)
	}
	if c.isRR() && r.Elapsed > 0 {
		el := r.Elapsed - c.pacedWait(r)
		v.rtt = 1 / (trans / el) * 1e6
		if !c.Test.Connection && c.Test.Burst > 0 {
			v.rtt *= float64(1 + c.Test.Burst)
		}
		v.transRate = trans / r.Elapsed
	}
	units := localXferd
	if c.perTrans() {
		units = trans
	}
	if c.LocalCPU && r.LocalCPU != nil && r.LocalCPUCount != nil {
		v.localCPU = *r.LocalCPU
		v.localSD = c.serviceDemand(units, r.Elapsed, v.localCPU, *r.LocalCPUCount)
	}
	if c.RemoteCPU {
		if util, ncpu, ok := c.remoteUtil(it); ok {
			v.remoteCPU = util
			v.remoteSD = c.serviceDemand(units, r.Elapsed, util, ncpu)
		}
	}
	return v
}

// perTrans reports whether the throughput and service demand count
// transactions: -f x, or TCP_CC, whose classic table always does.
func (c *Command) perTrans() bool { return c.Format == 'x' || c.TestName == "TCP_CC" }

// pacedWait is the time a paced request/response test waited between its
// bursts (netperf -w/-b), which netperf leaves out of RT_LATENCY; netscript
// paces by a rate, so it is the interval less the time the transactions
// took at their measured mean.
func (c *Command) pacedWait(r *result.Result) float64 {
	if c.IntervalBurst <= 0 || r.Latency == nil || r.Latency.Count == 0 {
		return 0
	}
	busy := float64(r.Transactions) * r.Latency.Mean / 1e6
	return math.Max(0, r.Elapsed-busy)
}

// calcThruput is netperf's calc_thruput_interval: units (transactions or
// bytes) over secs in the units of -f.
func (c *Command) calcThruput(units, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	var div float64
	switch c.Format {
	case 'K':
		div = 1024
	case 'M':
		div = 1024 * 1024
	case 'G':
		div = 1024 * 1024 * 1024
	case 'k':
		div = 1000.0 / 8
	case 'm':
		div = 1000.0 * 1000 / 8
	case 'g':
		div = 1000.0 * 1000 * 1000 / 8
	case 'x', 'b', 'B':
		div = 1
	default:
		div = 1024
	}
	return units / div / secs
}

// thruMbits is a per-direction rate as netperf's LOCAL_SEND_THROUGHPUT and
// the others print it: in -f's units, megabits for -f x.
func (c *Command) thruMbits(bytes, secs float64) float64 {
	saved := c.Format
	if c.Format == 'x' {
		c.Format = 'm'
	}
	defer func() { c.Format = saved }()
	return c.calcThruput(bytes, secs)
}

// serviceDemand is netperf's calc_service_demand_fmt: CPU microseconds per
// transaction (-f x) or per KB (K = 1024) of what this end moved.
func (c *Command) serviceDemand(units, secs, util float64, ncpu int) float64 {
	div := 1024.0
	if c.perTrans() {
		div = 1
	}
	if secs <= 0 || units <= 0 {
		return -1
	}
	thru := units / div / secs
	return util * 10000 / thru * float64(ncpu)
}

// remoteBytes are the far end's bytes sent and received: a netserver's
// results, a netscript server's counts, or none without a control
// connection.
func (c *Command) remoteBytes(it *iteration) (sent, recvd uint64) {
	if res := it.d.NetserverResults; res != nil {
		return res.BytesSent, res.BytesReceived
	}
	if p := it.r.Remote; p != nil {
		return p.BytesSent, p.BytesReceived
	}
	return 0, 0
}

// remoteUtil is the far end's CPU utilisation and CPU count, if it
// measured them.
func (c *Command) remoteUtil(it *iteration) (float64, int, bool) {
	r := it.r
	if r.RemoteCPU != nil && r.RemoteCPUCount != nil {
		return *r.RemoteCPU, *r.RemoteCPUCount, true
	}
	if res := it.d.NetserverResults; res != nil && it.d.NetserverResponse != nil &&
		it.d.NetserverResponse.Flags&npwire.OmniMeasureCPU != 0 {
		// netserver's own figure, even where netscript reads it as no
		// measurement (a padded timer's): netperf prints it.
		return float64(res.CPUUtil), int(res.NumCPUs), true
	}
	return 0, 0, false
}

// localStats is this end's CPU figures (measured with -c, else netperf's
// placeholders).
func (c *Command) localStats(it *iteration) cpuStats {
	s := cpuStats{Util: -1, PeakUtil: -1, PeakID: -1, Method: 'U'}
	if !c.LocalCPU {
		return s
	}
	if u := it.d.LocalCPU; u != nil {
		s = statsOf(u)
	}
	if it.r.LocalCPU != nil {
		s.Util = *it.r.LocalCPU
	}
	return s
}

func statsOf(u *cpu.Utilization) cpuStats {
	return cpuStats{Util: u.Percent, User: u.Mean.User, System: u.Mean.System, IOWait: u.Mean.IOWait,
		IRQ: u.Mean.IRQ, SWIntr: u.Mean.SoftIRQ, PeakUtil: u.Peak.Busy, PeakID: u.Peak.CPU, NumCPUs: u.NumCPU, Method: 'S'}
}

// remoteStats is the far end's CPU figures: a netserver's as it sent
// them; the embedded server's, which runs on this machine, from this
// end's reading of /proc/stat over the same interval; netperf's
// placeholders without a measurement.
func (c *Command) remoteStats(it *iteration) cpuStats {
	if res := it.d.NetserverResults; res != nil {
		s := cpuStats{Util: -1, User: float64(res.CPUPercentUser), System: float64(res.CPUPercentSystem),
			IOWait: float64(res.CPUPercentIOWait), IRQ: float64(res.CPUPercentIRQ), SWIntr: float64(res.CPUPercentSWIntr),
			PeakUtil: float64(res.PeakCPUUtil), PeakID: int(res.PeakCPUID), Method: 'U'}
		if c.RemoteCPU {
			s.Util, s.NumCPUs, s.Method = float64(res.CPUUtil), int(res.NumCPUs), methodChar(res.CPUMethod)
		}
		return s
	}
	s := cpuStats{Util: -1, Method: 'U'}
	if !c.RemoteCPU || c.NoControl {
		return s
	}
	if u := it.d.LocalCPU; u != nil && c.embedded() {
		s = statsOf(u)
	}
	if util, ncpu, ok := c.remoteUtil(it); ok {
		s.Util, s.NumCPUs, s.Method = util, ncpu, 'S'
	}
	return s
}

// methodChar is netperf's format_cpu_method.
func methodChar(m uint32) byte {
	switch m {
	case npwire.CPUUnknown:
		return 'U'
	case npwire.ProcStat:
		return 'S'
	}
	return '?'
}

// mergeHists is every iteration's transaction times in one histogram.
func mergeHists(its []*iteration) *hist.Histogram {
	var rs []*result.Result
	for _, it := range its {
		if it.r.Hist != nil {
			rs = append(rs, it.r)
		}
	}
	switch len(rs) {
	case 0:
		return nil
	case 1:
		return rs[0].Hist
	}
	h, err := result.MergeHist(rs)
	if err != nil {
		return rs[len(rs)-1].Hist
	}
	return h
}
