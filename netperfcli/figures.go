package netperfcli

import (
	"netscript/engine/hist"
	"netscript/engine/result"
)

// Figures are what the output prints: the means over the iterations run
// (netperf's retrieve_confident_values), the last iteration's sizes and
// counts, and the confidence reached.
type Figures struct {
	Last       *result.Result // the last iteration, for sizes, counts and addresses
	Throughput float64        // in the units of Units
	TransRate  float64        // RR tests: transactions per second, whatever the units
	Units      string         // "Trans/s", "10^6bits/s", ...
	Elapsed    float64
	// CPU figures (-1 when not measured, as netperf prints them).
	LocalCPU, RemoteCPU, LocalSD, RemoteSD float64
	LocalCPUCount, RemoteCPUCount          int
	// Latency over every iteration, in microseconds; nil for streams.
	Latency *result.Latency
	// Hist holds every iteration's transaction times (netperf does not
	// reset its histogram between iterations); nil for streams.
	Hist *hist.Histogram

	// Confidence: Iterations run; the widths reached in percent (-1 when
	// no confidence was asked for); Met is false when the target was
	// missed.
	Iterations                                  int
	ThroughputConfid, LocalConfid, RemoteConfid float64
	Met                                         bool
}

// figures averages the iterations' results.
func (c *Command) figures(rs []*result.Result) *Figures {
	f := &Figures{Last: rs[len(rs)-1], Iterations: len(rs), LocalCPU: -1, RemoteCPU: -1, LocalSD: -1, RemoteSD: -1,
		ThroughputConfid: -1, LocalConfid: -1, RemoteConfid: -1, Met: true}
	n := float64(len(rs))
	var cpuN int
	var lc, rc, lsd, rsd float64
	for _, r := range rs {
		f.Throughput += c.scale(r) / n
		f.TransRate += r.Throughput / n
		f.Elapsed += r.Elapsed / n
		if r.LocalCPU != nil && r.LocalSD != nil {
			cpuN++
			lc += *r.LocalCPU
			lsd += *r.LocalSD
			if r.RemoteCPU != nil && r.RemoteSD != nil {
				rc += *r.RemoteCPU
				rsd += *r.RemoteSD
			}
		}
	}
	f.Units = c.units()
	// netscript measures both ends; netperf prints -1 for the end that
	// -c or -C did not ask for.
	if cpuN > 0 {
		k := float64(cpuN)
		if c.LocalCPU {
			f.LocalCPU, f.LocalSD = lc/k, lsd/k
		}
		if c.RemoteCPU && f.Last.RemoteCPU != nil {
			f.RemoteCPU, f.RemoteSD = rc/k, rsd/k
		}
	}
	if c.band() && c.rrBytes() > 0 {
		// netperf's service demand is then per KB (K = 1024) of the
		// transactions' bytes, not per transaction.
		perKB := 1024 / c.rrBytes()
		if f.LocalSD >= 0 {
			f.LocalSD *= perKB
		}
		if f.RemoteSD >= 0 {
			f.RemoteSD *= perKB
		}
	}
	if f.Last.LocalCPUCount != nil {
		f.LocalCPUCount = *f.Last.LocalCPUCount
	}
	if f.Last.RemoteCPUCount != nil {
		f.RemoteCPUCount = *f.Last.RemoteCPUCount
	}
	if c.Test.RR() {
		if h, err := result.MergeHist(rs); err == nil && h != nil {
			f.Hist, f.Latency = h, result.LatencyOf(h)
		} else {
			f.Hist, f.Latency = f.Last.Hist, f.Last.Latency
		}
	}
	return f
}

// scale converts a result's throughput to the units of -f.
func (c *Command) scale(r *result.Result) float64 { return c.scaleRate(r.Throughput) }

// band reports whether a request/response test reports bits or bytes
// (-f other than x), as netperf then counts each transaction's request
// and response bytes.
func (c *Command) band() bool { return c.Test.RR() && c.Format != 0 && c.Format != 'x' }

// rrBytes is the bytes one transaction carries both ways.
func (c *Command) rrBytes() float64 {
	s, err := c.Spec()
	if err != nil {
		return 0
	}
	return float64(s.Request + s.Response)
}

// scaleRate converts a throughput in the engine's units (Trans/s, 10^6
// bits/s) to the units of -f.
func (c *Command) scaleRate(v float64) float64 {
	if c.Test.RR() && !c.band() {
		return v
	}
	bits := v * 1e6
	if c.band() {
		bits = v * c.rrBytes() * 8
	}
	return c.bitsIn(bits)
}

// unitsWord is netperf's format_units(): the unit the throughput is in,
// without "/s".
func (c *Command) unitsWord() string {
	if c.Test.RR() && !c.band() {
		return "Trans"
	}
	switch c.Format {
	case 'k':
		return "10^3bits"
	case 'g':
		return "10^9bits"
	case 'K':
		return "KBytes"
	case 'M':
		return "MBytes"
	case 'G':
		return "GBytes"
	}
	return "10^6bits"
}

func (c *Command) units() string { return c.unitsWord() + "/s" }

// sdUnits is SD_UNITS.
func (c *Command) sdUnits() string {
	if c.Test.RR() && !c.band() {
		return "usec/Tran"
	}
	return "usec/KB"
}
