package cpu

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// SystemSnapshot reads the per-CPU counters from /proc/stat now.
func SystemSnapshot() (Snapshot, error) { return readProcStat() }

// Usage is what a measured interval cost in CPU, by every measure this
// package has. All the percentages are of the whole machine (0 to 100 % for
// all CPUs together), so they compare directly with each other.
type Usage struct {
	// Elapsed is the interval between Start and Stop, by the monotonic clock.
	Elapsed time.Duration

	// System is the system-wide utilisation from /proc/stat: Percent,
	// NumCPU and PerCPU are netperf's figures. It counts everything that ran
	// on the machine, so it is wrong for a test that shares the machine.
	System Utilization

	// Process is the CPU time of this whole process over the interval.
	Process CPUTime
	// ProcessPercent is Process.Total() / (Elapsed × System.NumCPU) × 100,
	// clamped to [0, 100].
	ProcessPercent float64

	// Threads is the sum of the worker-thread times given to AddThread.
	Threads CPUTime
	// ThreadCount is the number of AddThread calls.
	ThreadCount int
	// ThreadPercent is Threads.Total() / (Elapsed × System.NumCPU) × 100,
	// clamped to [0, 100].
	ThreadPercent float64
}

// Meter measures the CPU cost of one interval: call Start, run the work,
// have each worker thread report its own time with AddThread, then call
// Stop. Its zero value is ready to use; a Meter may be reused after Stop but
// must not be copied after first use. AddThread may be called from any
// goroutine; Start and Stop must not race with each other.
type Meter struct {
	mu       sync.Mutex
	started  bool
	start    time.Time
	sys      Snapshot
	proc     CPUTime
	threads  CPUTime
	nthreads int
}

// Start takes the start snapshot (/proc/stat, process time, clock) and
// forgets any thread times from an earlier interval.
func (m *Meter) Start() error {
	sys, err := SystemSnapshot()
	if err != nil {
		return fmt.Errorf("cpu: meter start: %w", err)
	}
	proc, err := ProcessTime()
	if err != nil {
		return fmt.Errorf("cpu: meter start: %w", err)
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.started, m.start, m.sys, m.proc = true, now, sys, proc
	m.threads, m.nthreads = CPUTime{}, 0
	return nil
}

// AddThread adds one worker thread's CPU time over the interval. The worker
// measures itself: it calls [ThreadTime] at its start and at its end, while
// locked to its OS thread, and passes the difference (end.Sub(start)). Call
// it before Stop; time added after Stop counts toward the next interval.
func (m *Meter) AddThread(t CPUTime) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.threads = m.threads.Add(t)
	m.nthreads++
}

// Stop takes the stop snapshot and returns the usage over the interval since
// Start. It is an error to call Stop without Start, or when the interval was
// too short for the kernel's tick counters to move.
func (m *Meter) Stop() (Usage, error) {
	sys, err := SystemSnapshot()
	if err != nil {
		return Usage{}, fmt.Errorf("cpu: meter stop: %w", err)
	}
	proc, err := ProcessTime()
	if err != nil {
		return Usage{}, fmt.Errorf("cpu: meter stop: %w", err)
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.started {
		return Usage{}, errors.New("cpu: meter stop: Stop called without Start")
	}
	m.started = false
	u := Usage{
		Elapsed:     now.Sub(m.start),
		Process:     proc.Sub(m.proc),
		Threads:     m.threads,
		ThreadCount: m.nthreads,
	}
	if u.Elapsed <= 0 {
		return Usage{}, errors.New("cpu: meter stop: zero-length interval")
	}
	if u.System, err = SystemUtilization(m.sys, sys); err != nil {
		return Usage{}, fmt.Errorf("cpu: meter stop: %w", err)
	}
	u.ProcessPercent = machinePercent(u.Process.Total(), u.Elapsed, u.System.NumCPU)
	u.ThreadPercent = machinePercent(u.Threads.Total(), u.Elapsed, u.System.NumCPU)
	return u, nil
}

// machinePercent expresses CPU time as a percentage of what ncpu CPUs could
// deliver over elapsed, clamped to [0, 100].
func machinePercent(cpu, elapsed time.Duration, ncpu int) float64 {
	if elapsed <= 0 || ncpu <= 0 {
		return 0
	}
	return clampPercent(100 * cpu.Seconds() / (elapsed.Seconds() * float64(ncpu)))
}
