package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Config says how to monitor.
type Config struct {
	// Every is the time from one run's start to the next's, before jitter.
	// A run that takes longer delays the next: runs never overlap.
	Every time.Duration
	// Jitter is the largest fraction of Every a start moves by, either
	// way (0.1: ±10 %), so monitors started together spread out.
	Jitter float64
	// Run runs the script once; an error says the run failed.
	Run func(ctx context.Context) (Outcome, error)
	// Log, if set, is told of each run's end in one line.
	Log io.Writer
}

// Monitor holds the metrics of a monitored script.
type Monitor struct {
	cfg      Config
	reg      *prometheus.Registry
	figures  *figures
	counters *counters
}

// New returns a monitor with its metrics registered, including the Go
// runtime's and the process's (memory, descriptors), which show a
// monitor that leaks.
func New(cfg Config) *Monitor {
	reg := prometheus.NewRegistry()
	m := &Monitor{cfg: cfg, reg: reg, figures: &figures{}}
	reg.MustRegister(m.figures, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.counters = newCounters(reg)
	return m
}

// Handler serves the metrics in the Prometheus text or OpenMetrics
// format, as the scraper asks.
func (m *Monitor) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Serve serves the metrics on ln until ctx ends.
func (m *Monitor) Serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	err := srv.Serve(ln)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Loop runs the script until ctx ends: one run at a time, each start
// Every after the previous one's (jittered), or at once if that run took
// longer. A failed run is counted and the loop goes on.
func (m *Monitor) Loop(ctx context.Context) {
	next := time.Now()
	for n := 1; ; n++ {
		start := time.Now()
		o, err := m.cfg.Run(ctx)
		end := time.Now()
		if ctx.Err() != nil {
			return // stopped mid-run: not a run to count
		}
		m.counters.record(o, err, end, end.Sub(start))
		if err == nil {
			m.figures.set(o)
		}
		if m.cfg.Log != nil {
			m.logRun(n, o, err, end.Sub(start))
		}
		next = next.Add(m.delay())
		if now := time.Now(); next.Before(now) {
			next = now
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
	}
}

// delay is Every moved by up to ±Jitter of it.
func (m *Monitor) delay() time.Duration {
	d := m.cfg.Every
	if j := m.cfg.Jitter; j > 0 {
		d += time.Duration((rand.Float64()*2 - 1) * j * float64(d))
	}
	return max(d, 0)
}

func (m *Monitor) logRun(n int, o Outcome, err error, took time.Duration) {
	if err != nil {
		fmt.Fprintf(m.cfg.Log, "netscript monitor: run %d failed after %.1fs: %v\n", n, took.Seconds(), err)
		return
	}
	failed := 0
	for _, c := range o.Checks {
		if !c.Pass {
			failed++
		}
	}
	fmt.Fprintf(m.cfg.Log, "netscript monitor: run %d: %d results, %d of %d checks failed, %.1fs\n",
		n, len(o.Results), failed, len(o.Checks), took.Seconds())
}
