package latency

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/client"
	"netscript/engine/hist"
	"netscript/engine/result"
)

// The draft's parameters (draft-ietf-ippm-responsiveness-09, section 5.2,
// "Test Parameters"), but ID, which a call sets (interval=).
const (
	draftMAD = 4    // Moving Average Distance: intervals in a moving average
	draftTMP = 0.95 // Trimmed Mean Percentage: the share of samples kept
	draftSDT = 0.05 // Standard Deviation Tolerance, a fraction
	draftINP = 1    // load-generating connections at the start (each way)
	draftINC = 1    // connections added at each interval (each way)
	draftMNP = 16   // at most this many connections (both ways together)
	draftMPS = 100  // probes per second at most
	draftPTC = 0.05 // the share of the capacity probes may use
)

// foreignProbeBytes is what one foreign probe costs on the wire over raw
// TCP: SYN, SYN-ACK, ACK, a 1-byte request and response, FINs and their
// ACKs, about ten segments with headers. The draft's 5000 bytes (section
// 5.3) count TLS and HTTP, which raw TCP does not have.
const foreignProbeBytes = 1000

// Defaults of responsiveness(): draft-09 sets ID to 5 s "pending further
// investigation"; its revisions before, and networkQuality, use 1 s,
// which lets a run end in well under a minute.
const (
	defaultRPMInterval = time.Second
	defaultRPMMax      = 30 * time.Second
)

// rpmConfig is what one responsiveness() call runs.
type rpmConfig struct {
	target   target
	up, down bool
	id       time.Duration // the draft's ID
	limit    time.Duration // the time limit of section 5.4
	mnp      int           // the draft's MNP, both ways together
}

// rpmInterval is what the run saw in one interval of the algorithm.
type rpmInterval struct {
	upBytes, downBytes float64         // goodput of the load-generating connections
	foreign            *hist.Histogram // the foreign probes' transaction times
	self               []float64       // the self probes, ms
	up, down           int             // connections open at its end
}

// rpmRun is one call's run of the algorithm.
type rpmRun struct {
	r   *runner
	cfg *rpmConfig
	t0  time.Time

	loadCtx  context.Context
	stopLoad context.CancelFunc
	wg       sync.WaitGroup

	mu        sync.Mutex
	intervals []*rpmInterval
	loads     []*result.Result // the load-generating connections' results
	probes    []*result.Result // the foreign probes' tests
	up, down  int              // connections started each way
	err       error            // the first failure: the draft aborts (5.4)
	failed    chan struct{}    // closed at the first failure
}

// interval returns interval i, made on first use. Called with mu held.
func (run *rpmRun) interval(i int) *rpmInterval {
	for len(run.intervals) <= i {
		run.intervals = append(run.intervals, &rpmInterval{foreign: hist.New()})
	}
	return run.intervals[i]
}

// spread adds the bytes a sample counted over the span ending at end to
// the intervals that span overlaps, each its share by time: a sample that
// straddles a boundary (a blocked send ends it late) is not counted whole
// on one side. Called with mu held.
func (run *rpmRun) spread(end time.Time, span time.Duration, bytes float64, up bool) {
	add := func(i int, b float64) {
		if up {
			run.interval(i).upBytes += b
		} else {
			run.interval(i).downBytes += b
		}
	}
	if span <= 0 {
		add(run.index(end), bytes)
		return
	}
	start := end.Add(-span)
	for i := run.index(start); i <= run.index(end); i++ {
		lo, hi := start, end
		if b := run.t0.Add(time.Duration(i) * run.cfg.id); b.After(lo) {
			lo = b
		}
		if b := run.t0.Add(time.Duration(i+1) * run.cfg.id); b.Before(hi) {
			hi = b
		}
		if hi.After(lo) {
			add(i, bytes*float64(hi.Sub(lo))/float64(span))
		}
	}
}

// index is the interval an instant falls in.
func (run *rpmRun) index(t time.Time) int {
	return max(0, int(t.Sub(run.t0)/run.cfg.id))
}

// failure is the run's first failure, nil if none.
func (run *rpmRun) failure() error {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.err
}

// fail records the run's first failure.
func (run *rpmRun) fail(err error) {
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.err == nil {
		run.err = err
		close(run.failed)
	}
}

// addConnection starts one more load-generating connection (section 5.4:
// "Create INC additional load-generating connections"): a tcp_stream up
// or a tcp_maerts down, running until the run stops it, sampled five
// times an interval. Its samples add to the goodput of the interval they
// end in, and its smoothed RTT (up: this end sends) or its receiver's RTT
// estimate (down: this end only receives, and its own srtt never moves)
// is a self probe there.
func (run *rpmRun) addConnection(up bool) {
	workload, label := "tcp_maerts", "download"
	run.mu.Lock()
	if up {
		workload, label = "tcp_stream", "upload"
		run.up++
	} else {
		run.down++
	}
	n := run.up
	if !up {
		n = run.down
	}
	run.mu.Unlock()
	t, err := newTest(fmt.Sprintf("load %s %d", label, n), workload, run.cfg.target, run.cfg.limit+10*time.Second, run.cfg.id/5)
	if err != nil {
		run.fail(err)
		return
	}
	t = t.bulk()
	sample := func(p client.Interim) {
		bytes := p.Throughput * 1e6 / 8 * p.Interval
		if up && p.Acked != nil {
			// What the server has acknowledged, not what this end
			// wrote: with the bottleneck's queue beyond this host,
			// writes run ahead while the send buffers grow (23.7
			// Mbit/s "up" through a 20 Mbit/s router).
			bytes = float64(*p.Acked)
		}
		rtt := p.RTT
		if !up {
			rtt = p.RcvRTT
		}
		run.mu.Lock()
		defer run.mu.Unlock()
		run.spread(p.Ending, time.Duration(p.Interval*float64(time.Second)), bytes, up)
		iv := run.interval(run.index(p.Ending))
		if rtt != nil && *rtt > 0 {
			iv.self = append(iv.self, *rtt/1000)
		}
	}
	run.wg.Go(func() {
		res, err := run.r.run(run.loadCtx, t, nil, sample)
		if err != nil {
			run.fail(err)
			return
		}
		if res != nil {
			run.mu.Lock()
			run.loads = append(run.loads, res)
			run.mu.Unlock()
		}
		if !run.r.stopped.Load() {
			// Section 5.4: a connection that ends before the test
			// does aborts it.
			run.fail(fmt.Errorf("%s: %s ended before the test did", run.r.builtin, t.name))
		}
	})
}

// probeRate is how many foreign probes a second the next probe test
// sends (section 5.3): at most MPS, and no more than PTC of the goodput
// of the latest complete interval.
func (run *rpmRun) probeRate() float64 {
	run.mu.Lock()
	defer run.mu.Unlock()
	i := run.index(time.Now()) - 1
	if i < 0 || i >= len(run.intervals) {
		return draftMPS / 10
	}
	iv := run.intervals[i]
	capacity := (iv.upBytes + iv.downBytes) / run.cfg.id.Seconds()
	return math.Max(1, math.Min(draftMPS, draftPTC*capacity/foreignProbeBytes))
}

// foreignProbes sends foreign probes until the run stops (section 5.3):
// tcp_crr tests of half an interval (a quarter second at least), one after another, each transaction a
// new connection, a 1-byte request and a 1-byte response: the handshake
// (the draft's tcp_f) and the request (its http_f) of a client meeting a
// new server. A test's transaction times count in the interval it ends in.
func (run *rpmRun) foreignProbes() {
	for run.loadCtx.Err() == nil {
		t, err := newTest("foreign probes", "tcp_crr", run.cfg.target, max(run.cfg.id/2, 250*time.Millisecond), 0)
		if err != nil {
			run.fail(err)
			return
		}
		t.probe = true
		t.s.Rate = run.probeRate()
		res, err := run.r.run(run.loadCtx, t, nil, nil)
		if err != nil {
			run.fail(err)
			return
		}
		if res == nil {
			continue
		}
		run.mu.Lock()
		run.probes = append(run.probes, res)
		if res.Hist != nil {
			if err := run.interval(run.index(time.Now())).foreign.Merge(res.Hist); err != nil {
				run.mu.Unlock()
				run.fail(err)
				return
			}
		}
		run.mu.Unlock()
	}
}

// responsivenessOver is the responsiveness of intervals [a, b] for the
// TCP-only case (section 5.3.1.2): the foreign RPM from the trimmed mean
// of the foreign probes' round trips (a tcp_crr transaction is two: the
// handshake, tcp_f, and the request, http_f, so half its time is
// (TM(tcp_f) + TM(http_f)) / 2), the loaded RPM from the trimmed mean of
// the self probes, and their mean. Called with mu held.
func (run *rpmRun) responsivenessOver(a, b int) (r rpmFigures) {
	h := hist.New()
	var self []float64
	for i := max(a, 0); i <= b && i < len(run.intervals); i++ {
		_ = h.Merge(run.intervals[i].foreign) // counts far below 2^64
		self = append(self, run.intervals[i].self...)
	}
	r.foreign = h
	r.foreignMs = histTrimmedMean(h, draftTMP) / 2
	r.selfMs = trimmedMean(self, draftTMP)
	r.rpm = (rpm(r.foreignMs) + rpm(r.selfMs)) / 2
	return r
}

// rpmFigures are the responsiveness of a span of intervals.
type rpmFigures struct {
	foreign   *hist.Histogram
	foreignMs float64 // per round trip
	selfMs    float64
	rpm       float64
}

// goodputOver is the moving average aggregate goodput of intervals [a, b]
// each way, Mbit/s (section 5.4: the bytes of the MAD intervals over MAD
// times ID). Called with mu held.
func (run *rpmRun) goodputOver(a, b int) (up, down float64) {
	for i := max(a, 0); i <= b && i < len(run.intervals); i++ {
		up += run.intervals[i].upBytes
		down += run.intervals[i].downBytes
	}
	d := float64(b-max(a, 0)+1) * run.cfg.id.Seconds()
	return up * 8 / 1e6 / d, down * 8 / 1e6 / d
}

// responsivenessBuiltin: responsiveness(host=None, port=None,
// direction="both", interval=1, max_duration=30, max_connections=16).
func responsivenessBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r, err := newRunner(th, b.Name())
	if err != nil {
		return nil, err
	}
	var host, direction string = "", "both"
	var port int
	mnp := draftMNP
	var interval, limit starlark.Value = starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host?", &host, "port?", &port, "direction?", &direction,
		"interval?", &interval, "max_duration?", &limit, "max_connections?", &mnp); err != nil {
		return nil, err
	}
	cfg := &rpmConfig{mnp: mnp}
	if cfg.target, err = targetOf(r.env, host, port); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if direction != "both" && direction != "up" && direction != "down" {
		return nil, fmt.Errorf(`%s: direction must be "both", "up" or "down", got %q`, b.Name(), direction)
	}
	cfg.up, cfg.down = direction != "down", direction != "up"
	if mnp < 1 || mnp > 64 {
		return nil, fmt.Errorf("%s: max_connections must be from 1 to 64 (both ways together), got %d", b.Name(), mnp)
	}
	if cfg.id, err = durationArg(interval, defaultRPMInterval); err != nil {
		return nil, fmt.Errorf("%s: interval: %w", b.Name(), err)
	}
	if cfg.limit, err = durationArg(limit, defaultRPMMax); err != nil {
		return nil, fmt.Errorf("%s: max_duration: %w", b.Name(), err)
	}
	if cfg.limit < 2*draftMAD*cfg.id {
		return nil, fmt.Errorf("%s: max_duration (%v) must be at least %d intervals (%v): the draft's moving averages need %d each",
			b.Name(), cfg.limit, 2*draftMAD, 2*draftMAD*cfg.id, draftMAD)
	}
	return measure(r, cfg)
}

// idleLatency sends foreign probes before any load, as networkQuality's
// "Idle Latency": half an interval (a quarter second at least) of
// tcp_crr at a tenth of MPS.
func idleLatency(r *runner, cfg *rpmConfig) (*result.Result, error) {
	t, err := newTest("idle probes", "tcp_crr", cfg.target, max(cfg.id/2, 250*time.Millisecond), 0)
	if err != nil {
		return nil, err
	}
	t.probe = true
	t.s.Rate = draftMPS / 10
	return r.run(r.ctx, t, nil, nil)
}

// measure runs the algorithm of section 5.4 and returns its value.
func measure(r *runner, cfg *rpmConfig) (starlark.Value, error) {
	idle, err := idleLatency(r, cfg)
	if err != nil {
		return nil, err
	}
	run := &rpmRun{r: r, cfg: cfg, t0: time.Now(), failed: make(chan struct{})}
	run.loadCtx, run.stopLoad = context.WithCancel(r.ctx)
	defer run.stopLoad()
	// Section 5.4: "Create INP load-generating connections", and send
	// probes from the start.
	for range draftINP {
		if cfg.up {
			run.addConnection(true)
		}
		if cfg.down {
			run.addConnection(false)
		}
	}
	run.wg.Go(run.foreignProbes)
	var st rpmState
	for i := 0; ; i++ {
		timer := time.NewTimer(time.Until(run.t0.Add(time.Duration(i+1) * cfg.id)))
		select {
		case <-timer.C:
		case <-run.failed:
		case <-r.ctx.Done():
		}
		timer.Stop()
		if run.failure() != nil || r.ctx.Err() != nil {
			break
		}
		if st.step(run, i) || time.Since(run.t0)+cfg.id > cfg.limit {
			break
		}
		// Section 5.4, "at each interval": INC more, up to MNP.
		// With both ways loaded, each way has half of MNP.
		each := cfg.mnp
		if cfg.up && cfg.down {
			each = max(1, cfg.mnp/2)
		}
		for range draftINC {
			if cfg.up && run.up < each {
				run.addConnection(true)
			}
			if cfg.down && run.down < each {
				run.addConnection(false)
			}
		}
	}
	r.stopped.Store(true)
	run.stopLoad()
	run.wg.Wait()
	if err := r.ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	if err := run.failure(); err != nil {
		return nil, err
	}
	return newRPM(run, &st, idle)
}

// rpmState is the algorithm's state across intervals (section 5.4).
type rpmState struct {
	done       int       // intervals evaluated
	goodput    []float64 // each interval's aggregate goodput, Mbit/s
	averages   []float64 // the moving averages, from interval MAD-1 on
	saturated  int       // the interval goodput saturation was declared at
	rpms       []float64 // the responsiveness at each interval from saturation on
	rpmStable  bool
	satDeclare bool
}

// step evaluates interval i as section 5.4 does and reports whether
// responsiveness saturation was declared.
func (st *rpmState) step(run *rpmRun, i int) bool {
	run.mu.Lock()
	defer run.mu.Unlock()
	iv := run.interval(i)
	iv.up, iv.down = run.up, run.down
	up, down := run.goodputOver(i, i)
	st.goodput = append(st.goodput, up+down)
	st.done = i + 1
	if i >= draftMAD-1 {
		u, d := run.goodputOver(i-draftMAD+1, i)
		st.averages = append(st.averages, u+d)
	}
	if !st.satDeclare {
		// "If the standard deviation of the past MAD average goodput
		// values is less than SDT of the current_average, declare
		// goodput saturation."
		if stable(st.averages, draftMAD, draftSDT) {
			st.satDeclare, st.saturated = true, i
		}
	}
	if st.satDeclare {
		// "Compute the responsiveness at interval i" over the probes of
		// the last MAD intervals (section 5.3.1).
		f := run.responsivenessOver(i-draftMAD+1, i)
		if !math.IsNaN(f.rpm) {
			st.rpms = append(st.rpms, f.rpm)
		}
		st.rpmStable = stable(st.rpms, draftMAD, draftSDT)
	}
	return st.rpmStable
}

// confidence is the label of section 5.4.1 for a stage that ran n
// iterations and did or did not reach stability.
func confidence(n int, stable bool) string {
	switch {
	case stable:
		return "High"
	case n >= draftMAD:
		return "Medium"
	}
	return "Low"
}
