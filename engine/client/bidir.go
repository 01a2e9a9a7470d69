package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"netscript/engine/proto"
	"netscript/engine/result"
	"netscript/engine/spec"
)

// A test both ways (spec.Workload.Bidir) has a result of two directions,
// tx and rx, each as the workload of its Pair reports it (tcp_stream's
// and tcp_maerts's figures, end-of-test rules and all), put together by
// result.Bidir. With a connection per direction the two are tests of
// their own, run side by side (runPair); with one connection both ways
// the flows of one test are taken apart by direction: each connection's
// sending part and receiving part (bidirView).

// directions names the two directions, in the order of Workload.Pair.
var directions = [2]string{"tx", "rx"}

// runPair runs a test of a connection per direction as the two workloads
// of its Pair, set up side by side and released into one measured
// interval (through opt.Gate, if the test is itself one of several).
func runPair(ctx context.Context, s spec.Spec, opt Options) (*result.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &pairGate{outer: opt.Gate, left: 2}
	prog := &pairProgress{report: opt.Progress, interim: opt.Interim, test: s.Workload.String()}
	var res [2]*result.Result
	var errs [2]error
	var wg sync.WaitGroup
	for i := range 2 {
		d := s.Direction(i)
		o := opt
		o.Gate = &halfGate{g: g, i: i}
		if opt.Progress != nil {
			o.Progress = func(p Progress) { prog.progress(i, p) }
		}
		if opt.Interim != nil {
			o.Interim = func(p Interim) { prog.interimOf(i, p) }
		}
		wg.Go(func() {
			res[i], errs[i] = Run(ctx, d, o)
			if errs[i] != nil && !g.arrivedFrom(i) {
				cancel() // set up failed: the other direction must not wait for it
			}
		})
	}
	wg.Wait()
	// A direction that failed at set-up says why; the other then only
	// says it was cancelled.
	for i := range 2 {
		if errs[i] != nil && res[i] == nil && !errors.Is(errs[i], context.Canceled) {
			return nil, fmt.Errorf("%s (%s): %w", directions[i], s.Workload.Pair[i].Name, errs[i])
		}
	}
	for i := range 2 {
		if res[i] == nil {
			return nil, fmt.Errorf("%s (%s): %w", directions[i], s.Workload.Pair[i].Name, errs[i])
		}
	}
	out := result.Bidir(s.Workload.String(), res[0], res[1])
	out.Config.Connections = 2
	for i := range 2 {
		if errs[i] != nil {
			err := errs[i]
			var te *TestError
			if errors.As(err, &te) {
				err = te.Err
			}
			return out, &TestError{Err: fmt.Errorf("%s (%s): %w", directions[i], s.Workload.Pair[i].Name, err), Partial: out}
		}
	}
	return out, nil
}

// pairGate releases the two tests of a pair into one measured interval:
// once both have arrived it asks the outer gate (or, without one, the
// clock) for the start and gives it to both.
type pairGate struct {
	outer Gate

	mu      sync.Mutex
	left    int // tests still to arrive
	lead    time.Duration
	waiting []chan gateOutcome
	arrived [2]bool
}

// halfGate is the gate as test i of the pair sees it.
type halfGate struct {
	g *pairGate
	i int
}

// Arrive notes that test i arrived, and waits for the common start.
func (h *halfGate) Arrive(ctx context.Context, lead time.Duration) (time.Time, error) {
	h.g.mu.Lock()
	h.g.arrived[h.i] = true
	h.g.mu.Unlock()
	return h.g.Arrive(ctx, lead)
}

// gateOutcome is a start, or why there is none.
type gateOutcome struct {
	at  time.Time
	err error
}

// Arrive waits for the other test, then returns the common start.
func (g *pairGate) Arrive(ctx context.Context, lead time.Duration) (time.Time, error) {
	ch := make(chan gateOutcome, 1)
	g.mu.Lock()
	g.waiting = append(g.waiting, ch)
	g.lead = max(g.lead, lead)
	g.left--
	if g.left == 0 {
		chans, lead := g.waiting, g.lead
		go func() { // the outer gate may wait: not under the lock
			o := gateOutcome{at: time.Now().Add(lead)}
			if g.outer != nil {
				o.at, o.err = g.outer.Arrive(ctx, lead)
			}
			for _, c := range chans {
				c <- o
			}
		}()
	}
	g.mu.Unlock()
	select {
	case o := <-ch:
		return o.at, o.err
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
}

// arrivedFrom reports whether test i reached the gate: one that failed
// before it cancels the other, which would wait there for it.
func (g *pairGate) arrivedFrom(i int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.arrived[i]
}

// pairProgress puts the progress reports and interim samples of the two
// tests of a pair together, as one test's.
type pairProgress struct {
	report  func(Progress)
	interim func(Interim)
	test    string

	mu    sync.Mutex
	last  [2]*Progress
	queue [2][]Interim
}

// progress takes test i's report and reports both together.
func (p *pairProgress) progress(i int, r Progress) {
	p.mu.Lock()
	p.last[i] = &r
	sum := Progress{Test: p.test, Brand: r.Brand, Total: r.Total, Units: r.Units}
	for _, l := range p.last {
		if l == nil {
			continue
		}
		sum.Elapsed = max(sum.Elapsed, l.Elapsed)
		sum.Bytes += l.Bytes
		sum.Throughput += l.Throughput
		if l.Retransmits != nil {
			n := *l.Retransmits
			if sum.Retransmits != nil {
				n += *sum.Retransmits
			}
			sum.Retransmits = &n
		}
	}
	p.mu.Unlock()
	p.report(sum)
}

// interimOf takes test i's sample and, once the other test has its
// sample of the same interval, reports their sum.
func (p *pairProgress) interimOf(i int, s Interim) {
	p.mu.Lock()
	p.queue[i] = append(p.queue[i], s)
	var out []Interim
	for len(p.queue[0]) > 0 && len(p.queue[1]) > 0 {
		a, b := p.queue[0][0], p.queue[1][0]
		p.queue[0], p.queue[1] = p.queue[0][1:], p.queue[1][1:]
		a.Test = p.test
		a.Throughput += b.Throughput
		a.Retransmits, a.Cwnd, a.Acked = addCount(a.Retransmits, b.Retransmits), addCount(a.Cwnd, b.Cwnd), addCount(a.Acked, b.Acked)
		out = append(out, a)
	}
	p.mu.Unlock()
	for _, s := range out {
		p.interim(s)
	}
}

// addCount adds two optional counts.
func addCount(a, b *uint64) *uint64 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	v := *a + *b
	return &v
}

// bidirView is one direction of a test both ways on one connection per
// flow: the test as the workload of its Pair, over the flows' parts that
// run that direction.
type bidirView struct {
	r   *run
	w   *worker
	res *result.Result
}

// views takes a test both ways on one connection per flow apart into its
// directions.
func (r *run) views(w *worker) [2]*bidirView {
	var out [2]*bidirView
	for i := range 2 {
		vr := &run{spec: r.spec, opt: r.opt, pc: r.pc, ctrl: r.ctrl, ready: r.ready, noTCP: r.noTCP}
		vr.spec.Workload, vr.spec.Connections = r.spec.Workload.Pair[i], 0
		vr.spec.CPUUtil = false // the machine's CPU is over both: the whole test's (bidirFigures)
		vw := &worker{kind: vr.spec.Workload, start: w.start, granted: w.granted, sendSize: w.sendSize, recvSize: w.recvSize,
			affinity: w.affinity, cpu: w.cpu, tcp: w.tcp && i == 0, mptcp: w.mptcp && i == 0}
		for _, f := range w.flows {
			if f.part == i {
				vw.flows = append(vw.flows, f)
			}
		}
		vr.w = vw
		out[i] = &bidirView{r: vr, w: vw}
	}
	return out
}

// buildBidir builds each direction's result and returns them together.
func (r *run) buildBidir(w *worker) *result.Result {
	r.bidir = r.views(w)
	for _, v := range r.bidir {
		v.res = v.r.build(v.w)
	}
	return r.joinBidir()
}

// joinBidir is the result of the directions as they stand.
func (r *run) joinBidir() *result.Result {
	out := result.Bidir(r.spec.Workload.String(), r.bidir[0].res, r.bidir[1].res)
	out.Config.Connections = max(r.spec.Connections, 1)
	return out
}

// addRemoteBidir gives each direction the server's counts of it, and
// puts the directions together again into res.
func (r *run) addRemoteBidir(res *result.Result, rr *proto.Results) {
	for i, v := range r.bidir {
		v.r.addRemote(v.res, directionResults(rr, i))
	}
	r.remoteCPU = rr.CPU
	*res = *r.joinBidir()
	res.Config.RemoteCPUAffinity = rr.Affinity
}

// figuresBidir completes each direction's figures, puts them together
// into res, and adds the CPU figures of the whole test.
func (r *run) figuresBidir(res *result.Result, w *worker) {
	for _, v := range r.bidir {
		v.r.figures(v.res, v.w)
	}
	aff := res.Config.RemoteCPUAffinity
	*res = *r.joinBidir()
	res.Config.RemoteCPUAffinity = aff
	if r.spec.CPUUtil {
		r.cpuFigures(res, w)
	}
}

// directionResults is the server's Results of a test both ways as one
// direction's: what it received (tx) or what it sent (rx), each
// connection's the same; what is the connection's, not a direction's
// (accepts, errors, TCP_INFO, CPU), goes with tx alone.
func directionResults(rr *proto.Results, i int) *proto.Results {
	d := *rr
	d.CPU, d.Conns = nil, make([]proto.ConnCounts, len(rr.Conns))
	copy(d.Conns, rr.Conns)
	if i == 0 {
		d.BytesSent, d.SendCalls, d.ZeroCopy = 0, 0, nil
		for k := range d.Conns {
			d.Conns[k].BytesSent, d.Conns[k].SendCalls = 0, 0
		}
		return &d
	}
	d.BytesReceived, d.RecvCalls, d.Accepts, d.Errors, d.TCP = 0, 0, 0, nil, nil
	for k := range d.Conns {
		d.Conns[k].BytesReceived, d.Conns[k].RecvCalls, d.Conns[k].TCP = 0, 0, nil
	}
	return &d
}
