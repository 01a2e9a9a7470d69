package cpu

import (
	"errors"
	"fmt"
	"slices"
)

// CPUUtil is the share of an interval that one CPU (or the mean of several)
// spent in each state, in percent of that CPU's ticks.
type CPUUtil struct {
	CPU int // CPU number; -1 for a mean over CPUs

	// Busy is 100 − Idle: everything but idle counts, including iowait and
	// steal, as in netperf. It is the utilisation figure.
	Busy float64

	User    float64 // user, including guest
	Nice    float64 // nice, including guest_nice
	System  float64
	Idle    float64
	IOWait  float64
	IRQ     float64
	SoftIRQ float64
	Steal   float64
}

// SkippedCPU names a CPU left out of a [Utilization] and says why.
type SkippedCPU struct {
	CPU    int
	Reason string
}

// Utilization is the system-wide CPU utilisation over the interval between
// two snapshots, as netperf computes it.
type Utilization struct {
	// Percent is the mean of the per-CPU Busy figures, 0 to 100 whatever the
	// CPU count: netperf's "CPU util %".
	Percent float64
	// NumCPU is the number of CPUs measured (present in both snapshots with
	// ticks between them); it is the CPU count for service demand.
	NumCPU int
	// PerCPU holds each measured CPU's figures, sorted by CPU number.
	PerCPU []CPUUtil
	// Mean is the per-state mean over PerCPU (Mean.Busy == Percent).
	Mean CPUUtil
	// Peak is the busiest CPU (the lowest-numbered one on a tie).
	Peak CPUUtil
	// Skipped lists CPUs that were online for only part of the interval, or
	// whose counters did not move; they are not in the figures above.
	Skipped []SkippedCPU
}

// SystemUtilization computes the utilisation between a start and a stop
// snapshot. Per CPU, each counter's delta is taken (a counter that went
// backwards, which the kernel allows for iowait, counts as zero), the total is
// the sum of all deltas except guest and guest_nice (already inside user and
// nice), and Busy = 100 − 100·idle/total, clamped to [0, 100].
//
// A CPU present in only one snapshot (it went offline or came online in
// between) is skipped and listed in Utilization.Skipped rather than failing
// the measurement. It is an error when no CPU is in both snapshots, when a
// snapshot names a CPU twice, or when no clock tick passed on any CPU (a
// zero-length interval).
func SystemUtilization(start, stop Snapshot) (Utilization, error) {
	a, err := sortedCPUs("start", start)
	if err != nil {
		return Utilization{}, err
	}
	b, err := sortedCPUs("stop", stop)
	if err != nil {
		return Utilization{}, err
	}
	var u Utilization
	common := 0
	for i, j := 0, 0; i < len(a) || j < len(b); {
		switch {
		case j == len(b) || (i < len(a) && a[i].CPU < b[j].CPU):
			u.Skipped = append(u.Skipped, SkippedCPU{a[i].CPU, "absent from the stop snapshot (went offline?)"})
			i++
		case i == len(a) || b[j].CPU < a[i].CPU:
			u.Skipped = append(u.Skipped, SkippedCPU{b[j].CPU, "absent from the start snapshot (came online?)"})
			j++
		default:
			common++
			if c, ok := cpuUtil(a[i].CPU, a[i].Times, b[j].Times); ok {
				u.PerCPU = append(u.PerCPU, c)
			} else {
				u.Skipped = append(u.Skipped, SkippedCPU{a[i].CPU, "no clock ticks between the snapshots"})
			}
			i++
			j++
		}
	}
	switch {
	case common == 0:
		return Utilization{}, errors.New("cpu: utilization: no CPU is present in both snapshots")
	case len(u.PerCPU) == 0:
		return Utilization{}, errors.New("cpu: utilization: zero-length interval: no clock tick passed between the snapshots")
	}
	u.NumCPU = len(u.PerCPU)
	u.Mean = meanUtil(u.PerCPU)
	u.Percent = u.Mean.Busy
	u.Peak = u.PerCPU[0]
	for _, c := range u.PerCPU[1:] {
		if c.Busy > u.Peak.Busy {
			u.Peak = c
		}
	}
	return u, nil
}

// sortedCPUs returns a sorted copy of s.CPUs, or an error if a CPU appears
// twice; which names the snapshot for the message.
func sortedCPUs(which string, s Snapshot) ([]CPUTimes, error) {
	c := slices.Clone(s.CPUs)
	slices.SortStableFunc(c, func(a, b CPUTimes) int { return a.CPU - b.CPU })
	for i := 1; i < len(c); i++ {
		if c[i].CPU == c[i-1].CPU {
			return nil, fmt.Errorf("cpu: utilization: cpu%d appears more than once in the %s snapshot", c[i].CPU, which)
		}
	}
	return c, nil
}

// cpuUtil computes one CPU's figures; ok is false when no tick passed.
func cpuUtil(id int, a, b Times) (CPUUtil, bool) {
	d := func(x, y uint64) float64 {
		if y < x {
			return 0
		}
		return float64(y - x)
	}
	user, nice, system := d(a.User, b.User), d(a.Nice, b.Nice), d(a.System, b.System)
	idle, iowait := d(a.Idle, b.Idle), d(a.IOWait, b.IOWait)
	irq, softirq, steal := d(a.IRQ, b.IRQ), d(a.SoftIRQ, b.SoftIRQ), d(a.Steal, b.Steal)
	total := user + nice + system + idle + iowait + irq + softirq + steal
	if total <= 0 {
		return CPUUtil{}, false
	}
	pct := func(x float64) float64 { return clampPercent(100 * x / total) }
	c := CPUUtil{
		CPU:     id,
		User:    pct(user),
		Nice:    pct(nice),
		System:  pct(system),
		Idle:    pct(idle),
		IOWait:  pct(iowait),
		IRQ:     pct(irq),
		SoftIRQ: pct(softirq),
		Steal:   pct(steal),
	}
	c.Busy = clampPercent(100 - c.Idle)
	return c, true
}

// meanUtil averages each state over cs, which is not empty.
func meanUtil(cs []CPUUtil) CPUUtil {
	m := CPUUtil{CPU: -1}
	for _, c := range cs {
		m.Busy += c.Busy
		m.User += c.User
		m.Nice += c.Nice
		m.System += c.System
		m.Idle += c.Idle
		m.IOWait += c.IOWait
		m.IRQ += c.IRQ
		m.SoftIRQ += c.SoftIRQ
		m.Steal += c.Steal
	}
	n := float64(len(cs))
	for _, p := range []*float64{&m.Busy, &m.User, &m.Nice, &m.System, &m.Idle, &m.IOWait, &m.IRQ, &m.SoftIRQ, &m.Steal} {
		*p = clampPercent(*p / n)
	}
	return m
}

// clampPercent limits p to [0, 100]; NaN becomes 0.
func clampPercent(p float64) float64 {
	switch {
	case p > 100:
		return 100
	case p >= 0:
		return p
	default: // negative or NaN
		return 0
	}
}
