package cpu

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func snap(cpus ...CPUTimes) Snapshot { return Snapshot{CPUs: cpus} }

func TestSystemUtilization(t *testing.T) {
	const max64 = math.MaxUint64
	tests := []struct {
		name        string
		start, stop Snapshot
		wantPct     float64   // Percent
		wantPerCPU  []float64 // Busy of each measured CPU, in order
		wantSkipped []int
		wantErr     string
	}{
		{
			// cpu0: 50 user of 100 ticks = 50 %; cpu1: 25 system of 100 = 25 %.
			// Mean (50 + 25) / 2 = 37.5 %.
			name:       "plain user and system",
			start:      snap(CPUTimes{0, Times{User: 100, Idle: 900}}, CPUTimes{1, Times{}}),
			stop:       snap(CPUTimes{0, Times{User: 150, Idle: 950}}, CPUTimes{1, Times{System: 25, Idle: 75}}),
			wantPct:    37.5,
			wantPerCPU: []float64{50, 25},
		},
		{
			// cpu0 deltas: user 10 (of which guest 8), nice 5, system 15,
			// idle 40, iowait 10, irq 5, softirq 5, steal 10. Total without
			// guest = 100, idle 40 % → busy 60 % (iowait and steal are busy).
			// cpu1: idle 180, iowait 20 → total 200, busy 10 %.
			// Mean (60 + 10) / 2 = 35 %. (netperf would add guest again:
			// total 108, cpu0 busy 62.96 %.)
			name: "iowait, steal and guest",
			start: snap(
				CPUTimes{0, Times{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 500, 0}},
				CPUTimes{1, Times{Idle: 5000, IOWait: 100}},
			),
			stop: snap(
				CPUTimes{0, Times{1010, 1005, 1015, 1040, 1010, 1005, 1005, 1010, 508, 0}},
				CPUTimes{1, Times{Idle: 5180, IOWait: 120}},
			),
			wantPct:    35,
			wantPerCPU: []float64{60, 10},
		},
		{
			// iowait went backwards (the kernel allows it): the delta counts
			// as 0, so cpu0 is user 30 / (30 + 70 idle) = 30 %.
			name:       "counter goes backwards",
			start:      snap(CPUTimes{0, Times{User: 0, Idle: 0, IOWait: 50}}),
			stop:       snap(CPUTimes{0, Times{User: 30, Idle: 70, IOWait: 40}}),
			wantPct:    30,
			wantPerCPU: []float64{30},
		},
		{
			// Counters near the top of uint64 still give exact deltas.
			name:       "huge counters",
			start:      snap(CPUTimes{0, Times{User: max64 - 100, Idle: max64 - 300}}),
			stop:       snap(CPUTimes{0, Times{User: max64, Idle: max64 - 200}}),
			wantPct:    50,
			wantPerCPU: []float64{50},
		},
		{
			// cpu1 went offline and cpu3 came online during the interval;
			// both are skipped and the figure is over cpu0 and cpu2 only.
			name:        "CPUs offline and online between snapshots",
			start:       snap(CPUTimes{0, Times{Idle: 0}}, CPUTimes{1, Times{}}, CPUTimes{2, Times{}}),
			stop:        snap(CPUTimes{0, Times{User: 100, Idle: 0}}, CPUTimes{2, Times{Idle: 100}}, CPUTimes{3, Times{User: 5}}),
			wantPct:     50,
			wantPerCPU:  []float64{100, 0},
			wantSkipped: []int{1, 3},
		},
		{
			// cpu1 did not tick (a very short interval): skipped, not 0 % or NaN.
			name:        "one CPU without ticks",
			start:       snap(CPUTimes{0, Times{}}, CPUTimes{1, Times{Idle: 7}}),
			stop:        snap(CPUTimes{0, Times{System: 1, Idle: 3}}, CPUTimes{1, Times{Idle: 7}}),
			wantPct:     25,
			wantPerCPU:  []float64{25},
			wantSkipped: []int{1},
		},
		{
			// Unsorted hand-made snapshots are fine.
			name:       "unsorted input",
			start:      snap(CPUTimes{1, Times{}}, CPUTimes{0, Times{}}),
			stop:       snap(CPUTimes{0, Times{User: 1, Idle: 3}}, CPUTimes{1, Times{User: 3, Idle: 1}}),
			wantPct:    50,
			wantPerCPU: []float64{25, 75},
		},
		{
			// The same snapshot twice: a zero-length interval.
			name:    "zero-length interval",
			start:   snap(CPUTimes{0, Times{User: 5, Idle: 5}}),
			stop:    snap(CPUTimes{0, Times{User: 5, Idle: 5}}),
			wantErr: "zero-length interval",
		},
		{
			// Nothing in common.
			name:    "disjoint CPUs",
			start:   snap(CPUTimes{0, Times{}}),
			stop:    snap(CPUTimes{1, Times{Idle: 1}}),
			wantErr: "no CPU is present in both snapshots",
		},
		{
			// Empty snapshots.
			name:    "empty",
			wantErr: "no CPU is present in both snapshots",
		},
		{
			// A hand-made snapshot with a CPU twice.
			name:    "duplicate CPU",
			start:   snap(CPUTimes{0, Times{}}, CPUTimes{0, Times{}}),
			stop:    snap(CPUTimes{0, Times{Idle: 1}}),
			wantErr: "cpu0 appears more than once in the start snapshot",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := SystemUtilization(tc.start, tc.stop)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("SystemUtilization: %v", err)
			}
			if !near(u.Percent, tc.wantPct) || !near(u.Mean.Busy, tc.wantPct) {
				t.Errorf("Percent = %v, Mean.Busy = %v, want %v", u.Percent, u.Mean.Busy, tc.wantPct)
			}
			if u.NumCPU != len(tc.wantPerCPU) || len(u.PerCPU) != len(tc.wantPerCPU) {
				t.Fatalf("NumCPU = %d, PerCPU = %+v, want %d CPUs", u.NumCPU, u.PerCPU, len(tc.wantPerCPU))
			}
			for i, c := range u.PerCPU {
				if !near(c.Busy, tc.wantPerCPU[i]) {
					t.Errorf("cpu%d Busy = %v, want %v", c.CPU, c.Busy, tc.wantPerCPU[i])
				}
				if c.Busy < 0 || c.Busy > 100 {
					t.Errorf("cpu%d Busy = %v outside [0,100]", c.CPU, c.Busy)
				}
			}
			var skipped []int
			for _, s := range u.Skipped {
				skipped = append(skipped, s.CPU)
				if s.Reason == "" {
					t.Errorf("cpu%d skipped without a reason", s.CPU)
				}
			}
			if !reflect.DeepEqual(skipped, tc.wantSkipped) {
				t.Errorf("skipped %v, want %v", skipped, tc.wantSkipped)
			}
		})
	}
}

// TestSystemUtilizationBreakdown checks the per-state figures, the mean and
// the peak for the iowait/steal case worked by hand above.
func TestSystemUtilizationBreakdown(t *testing.T) {
	start := snap(CPUTimes{0, Times{}}, CPUTimes{1, Times{}})
	stop := snap(
		CPUTimes{0, Times{User: 10, Nice: 5, System: 15, Idle: 40, IOWait: 10, IRQ: 5, SoftIRQ: 5, Steal: 10, Guest: 8}},
		CPUTimes{1, Times{Idle: 180, IOWait: 20}},
	)
	u, err := SystemUtilization(start, stop)
	if err != nil {
		t.Fatal(err)
	}
	want0 := CPUUtil{CPU: 0, Busy: 60, User: 10, Nice: 5, System: 15, Idle: 40, IOWait: 10, IRQ: 5, SoftIRQ: 5, Steal: 10}
	want1 := CPUUtil{CPU: 1, Busy: 10, Idle: 90, IOWait: 10}
	wantMean := CPUUtil{CPU: -1, Busy: 35, User: 5, Nice: 2.5, System: 7.5, Idle: 65, IOWait: 10, IRQ: 2.5, SoftIRQ: 2.5, Steal: 5}
	for _, c := range []struct {
		name      string
		got, want CPUUtil
	}{{"cpu0", u.PerCPU[0], want0}, {"cpu1", u.PerCPU[1], want1}, {"mean", u.Mean, wantMean}, {"peak", u.Peak, want0}} {
		if !utilNear(c.got, c.want) {
			t.Errorf("%s = %+v\nwant   %+v", c.name, c.got, c.want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func utilNear(a, b CPUUtil) bool {
	return a.CPU == b.CPU && near(a.Busy, b.Busy) && near(a.User, b.User) && near(a.Nice, b.Nice) &&
		near(a.System, b.System) && near(a.Idle, b.Idle) && near(a.IOWait, b.IOWait) &&
		near(a.IRQ, b.IRQ) && near(a.SoftIRQ, b.SoftIRQ) && near(a.Steal, b.Steal)
}
