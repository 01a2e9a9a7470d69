package cpu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadClock reads CLOCK_THREAD_CPUTIME_ID, an independent measure of the
// calling thread's CPU time to check ThreadTime against.
func threadClock() (time.Duration, error) {
	var ts unix.Timespec
	err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano()), err
}

// runDelay reads how long the calling thread has waited on a run queue
// (the second field of /proc/self/task/<tid>/schedstat); ok is false where
// the kernel has no schedstat.
func runDelay() (d time.Duration, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/schedstat", unix.Gettid()))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	return time.Duration(ns), err == nil
}

type threadResult struct {
	rusage, clock, process time.Duration
	user                   time.Duration
	wall, waited           time.Duration // wall time of work, and time spent waiting for a CPU
	err                    error
}

// measureThread runs work on a locked thread and returns how much the
// thread's CPU time (by getrusage and by the thread clock) and the
// process's CPU time moved.
func measureThread(work func()) threadResult {
	return onLockedThread(func() threadResult {
		p0, err := ProcessTime()
		if err != nil {
			return threadResult{err: err}
		}
		t0, err := ThreadTime()
		if err != nil {
			return threadResult{err: err}
		}
		c0, err := threadClock()
		if err != nil {
			return threadResult{err: err}
		}
		w0, _ := runDelay()
		start := time.Now()
		work()
		wall := time.Since(start)
		w1, _ := runDelay()
		t1, err := ThreadTime()
		if err != nil {
			return threadResult{err: err}
		}
		c1, err := threadClock()
		if err != nil {
			return threadResult{err: err}
		}
		p1, err := ProcessTime()
		if err != nil {
			return threadResult{err: err}
		}
		d := t1.Sub(t0)
		return threadResult{rusage: d.Total(), user: d.User, clock: c1 - c0, process: p1.Sub(p0).Total(), wall: wall, waited: w1 - w0}
	})
}

// TestThreadTimeBusy checks that ~200 ms of busy loop on a locked thread
// raises ThreadTime by at least half of the time the thread could run. Only a
// lower bound is asserted. The machine may be shared (other tests, other
// engineers' fuzzers), so the time the thread spent waiting for a CPU, from
// schedstat, is taken off the wall time before comparing, and a shortfall is
// retried.
func TestThreadTimeBusy(t *testing.T) {
	const busy = 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		r := measureThread(func() { spin(busy) })
		if r.err != nil {
			t.Fatal(r.err)
		}
		runnable := r.wall - r.waited
		t.Logf("attempt %d: thread %v (user %v), thread clock %v, process %v; wall %v, waited for a CPU %v",
			attempt, r.rusage, r.user, r.clock, r.process, r.wall, r.waited)
		if r.rusage < 0 || r.user <= 0 {
			t.Fatalf("thread time moved by %v (user %v), want a positive amount", r.rusage, r.user)
		}
		// getrusage and the thread clock both come from the scheduler's
		// runtime of the thread; they must agree closely.
		if diff := r.rusage - r.clock; diff < -20*time.Millisecond || diff > 20*time.Millisecond {
			t.Errorf("getrusage says %v, CLOCK_THREAD_CPUTIME_ID says %v", r.rusage, r.clock)
		}
		if r.process < r.rusage-time.Millisecond {
			t.Errorf("process time moved by %v, less than the thread's %v", r.process, r.rusage)
		}
		if r.rusage >= runnable/2 {
			return
		}
		if attempt == 3 {
			t.Fatalf("a busy loop of %v wall (%v runnable) raised ThreadTime by only %v (want >= %v) in 3 attempts",
				r.wall, runnable, r.rusage, runnable/2)
		}
	}
}

// TestThreadTimeIdle checks that a thread sleeping for 200 ms barely moves
// its own CPU time.
func TestThreadTimeIdle(t *testing.T) {
	const idle = 200 * time.Millisecond
	r := measureThread(func() { time.Sleep(idle) })
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Logf("thread %v, thread clock %v over a %v sleep", r.rusage, r.clock, idle)
	if r.rusage < 0 || r.rusage > idle/4 {
		t.Fatalf("a sleeping thread's time moved by %v, want between 0 and %v", r.rusage, idle/4)
	}
}

// TestCPUTimeArithmetic checks Add, Sub and Total.
func TestCPUTimeArithmetic(t *testing.T) {
	a := CPUTime{User: 3 * time.Second, System: time.Second}
	b := CPUTime{User: time.Second, System: 500 * time.Millisecond}
	if got := a.Add(b); got != (CPUTime{4 * time.Second, 1500 * time.Millisecond}) {
		t.Errorf("Add = %+v", got)
	}
	if got := a.Sub(b); got != (CPUTime{2 * time.Second, 500 * time.Millisecond}) {
		t.Errorf("Sub = %+v", got)
	}
	if got := a.Total(); got != 4*time.Second {
		t.Errorf("Total = %v", got)
	}
}
