package mux

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"netscript/engine/cpu"
	"netscript/engine/sock"
	"netscript/engine/workload"
)

// Runner is a multi-flow test set up on its threads: each thread is locked,
// bound to cfg.CPU if one was given, has made its epoll instance and waits
// for Start. Preparing first keeps thread creation and epoll set-up out of
// the measured interval, so every flow can begin at one instant.
type Runner struct {
	begin   chan struct{}
	start   time.Time
	aborted atomic.Bool
	wg      sync.WaitGroup
	started bool

	cpuNs    atomic.Int64 // CPU time of the threads over the interval
	mu       sync.Mutex
	affinity []int
}

// threadFunc sets up one thread's share of the flows on its locked thread
// and returns the function that runs them from start.
type threadFunc func(part []*Flow) (run func(start time.Time), err error)

// prepare starts cfg.Threads threads, each setting up its share with
// setup; it returns once every thread is ready, or the first error (the
// threads are ended then).
func prepare(flows []*Flow, cfg *Config, setup threadFunc) (*Runner, error) {
	r := &Runner{begin: make(chan struct{})}
	parts := split(flows, cfg.Threads)
	ready := make(chan error, len(parts))
	for _, part := range parts {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the test
			if cfg.CPU != nil {
				if err := cpu.Bind(*cfg.CPU); err != nil {
					ready <- err
					return
				}
			}
			sock.FineTimers() // best effort: the wait for the start wakes on time
			run, err := setup(part)
			if err == nil {
				r.mu.Lock()
				if r.affinity == nil {
					r.affinity, _ = cpu.Affinity()
				}
				r.mu.Unlock()
			}
			ready <- err
			if err != nil {
				return
			}
			<-r.begin
			if r.aborted.Load() {
				run(time.Time{}) // lets the thread release what it set up
				return
			}
			workload.WaitUntil(r.start, cfg.stopped)
			t0, terr := cpu.ThreadTime()
			run(r.start)
			if t1, err := cpu.ThreadTime(); terr == nil && err == nil {
				r.cpuNs.Add(int64(t1.Sub(t0).Total()))
			}
		}()
	}
	var first error
	for range parts {
		if err := <-ready; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		r.Abort()
		return nil, fmt.Errorf("mux: %w", first)
	}
	return r, nil
}

// Start releases the threads; the flows begin at t0 (or at once if t0 has
// passed), all measured from t0.
func (r *Runner) Start(t0 time.Time) {
	r.start = t0
	r.started = true
	close(r.begin)
}

// Wait returns once every flow has finished.
func (r *Runner) Wait() { r.wg.Wait() }

// Abort ends the threads of a runner that was never started.
func (r *Runner) Abort() {
	if r.started {
		r.wg.Wait()
		return
	}
	r.started = true
	r.aborted.Store(true)
	close(r.begin)
	r.wg.Wait()
}

// CPUTime is the CPU time the threads used over the measured interval,
// once Wait has returned.
func (r *Runner) CPUTime() time.Duration { return time.Duration(r.cpuNs.Load()) }

// Affinity is the CPUs the threads could run on, as one of them read it.
func (r *Runner) Affinity() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.affinity
}

// runNow prepares flows with prep, starts them at start and waits for them;
// if preparing fails, every flow ends with that error.
func runNow(start time.Time, flows []*Flow, cfg *Config, prep func([]*Flow, *Config) (*Runner, error)) {
	r, err := prep(flows, cfg)
	if err != nil {
		for _, f := range flows {
			if f.Err == nil {
				f.Err = err
			}
			f.finish(false, cfg.deadline())
		}
		return
	}
	r.Start(start)
	r.Wait()
}
