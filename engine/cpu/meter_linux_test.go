package cpu

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMeterPinnedBusyLoop runs a busy loop on a thread bound to one CPU under
// a Meter and checks that every figure is in range and that the work shows.
func TestMeterPinnedBusyLoop(t *testing.T) {
	cpus := usableCPUs(t)
	online, err := Online()
	if err != nil {
		t.Fatal(err)
	}
	var m Meter
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	const busy = 300 * time.Millisecond
	err = onLockedThread(func() error {
		if err := Bind(cpus[0]); err != nil {
			return err
		}
		t0, err := ThreadTime()
		if err != nil {
			return err
		}
		spin(busy)
		t1, err := ThreadTime()
		if err != nil {
			return err
		}
		m.AddThread(t1.Sub(t0))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("elapsed %v, system %.2f%% over %d CPUs %+v, process %v = %.2f%%, threads %v = %.2f%%",
		u.Elapsed, u.System.Percent, u.System.NumCPU, u.System.PerCPU, u.Process.Total(), u.ProcessPercent,
		u.Threads.Total(), u.ThreadPercent)

	if u.Elapsed < busy {
		t.Errorf("Elapsed %v shorter than the %v busy loop", u.Elapsed, busy)
	}
	if u.System.Percent <= 0 || u.System.Percent > 100 {
		t.Errorf("system utilisation %v%%, want in (0, 100]", u.System.Percent)
	}
	if u.System.NumCPU != len(online) || len(u.System.PerCPU) != len(online) {
		t.Errorf("NumCPU %d, %d per-CPU figures; want %d (online %v)", u.System.NumCPU, len(u.System.PerCPU), len(online), online)
	}
	for _, c := range u.System.PerCPU {
		if c.Busy < 0 || c.Busy > 100 {
			t.Errorf("cpu%d busy %v%% outside [0, 100]", c.CPU, c.Busy)
		}
		if c.CPU == cpus[0] && c.Busy <= 0 {
			t.Errorf("cpu%d ran the busy loop but shows %v%%", c.CPU, c.Busy)
		}
	}
	if u.ThreadCount != 1 || u.Threads.Total() <= 0 {
		t.Errorf("threads: %d, %v; want 1 thread with positive time", u.ThreadCount, u.Threads.Total())
	}
	if u.Process.Total() < u.Threads.Total() {
		t.Errorf("process time %v below the worker thread's %v", u.Process.Total(), u.Threads.Total())
	}
	for name, p := range map[string]float64{"process": u.ProcessPercent, "thread": u.ThreadPercent} {
		if p <= 0 || p > 100 {
			t.Errorf("%s utilisation %v%%, want in (0, 100]", name, p)
		}
	}
	// The process and thread percentages are of the whole machine.
	want := 100 * u.Threads.Total().Seconds() / (u.Elapsed.Seconds() * float64(u.System.NumCPU))
	if !near(u.ThreadPercent, min(want, 100)) {
		t.Errorf("ThreadPercent %v, want %v", u.ThreadPercent, want)
	}
}

// TestMeterSumsWorkers checks that the times of several workers, each
// measured on its own thread, are added.
func TestMeterSumsWorkers(t *testing.T) {
	var m Meter
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	const workers = 3
	var wg sync.WaitGroup
	own := make([]CPUTime, workers)
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			errs[i] = onLockedThread(func() error {
				t0, err := ThreadTime()
				if err != nil {
					return err
				}
				spin(50 * time.Millisecond)
				t1, err := ThreadTime()
				if err != nil {
					return err
				}
				own[i] = t1.Sub(t0)
				m.AddThread(own[i])
				return nil
			})
		})
	}
	wg.Wait()
	u, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	var sum CPUTime
	for i := range workers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		sum = sum.Add(own[i])
	}
	if u.ThreadCount != workers || u.Threads != sum {
		t.Fatalf("Usage has %d threads, %+v; want %d, %+v", u.ThreadCount, u.Threads, workers, sum)
	}
}

// TestMeterMisuse checks Stop without Start, a second Stop, and that Start
// forgets thread time from the previous interval.
func TestMeterMisuse(t *testing.T) {
	var m Meter
	if _, err := m.Stop(); err == nil || !strings.Contains(err.Error(), "without Start") {
		t.Fatalf("Stop before Start: %v", err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	m.AddThread(CPUTime{User: time.Hour})
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the tick counters move
	u, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if u.ThreadCount != 0 || u.Threads != (CPUTime{}) {
		t.Errorf("second Start kept thread time: %d, %+v", u.ThreadCount, u.Threads)
	}
	if _, err := m.Stop(); err == nil {
		t.Error("second Stop succeeded")
	}
}

// TestSystemSnapshot reads the real /proc/stat.
func TestSystemSnapshot(t *testing.T) {
	s, err := SystemSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	online, err := Online()
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, c := range s.CPUs {
		ids = append(ids, c.CPU)
	}
	if FormatCPUList(ids) != FormatCPUList(online) {
		t.Fatalf("/proc/stat has CPUs %v, online are %v", ids, online)
	}
}
