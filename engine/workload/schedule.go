package workload

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"netscript/engine/sock"
)

// Stage is one stage of an arrival ramp: over Duration the rate moves in a
// straight line from the rate before the stage to Target (requests per
// second), as the stages of k6's ramping-arrival-rate executor do.
type Stage struct {
	Target   float64
	Duration time.Duration
}

// ScheduleCounts is what an open-model loop counted against its schedule.
type ScheduleCounts struct {
	// Scheduled is how many requests the schedule placed inside the loop's
	// interval (before the deadline, or before the loop ended otherwise),
	// at most the transaction limit.
	Scheduled uint64
	// Sent is how many of them the loop started.
	Sent uint64
	// Late is how many of those started late: when the loop came to send
	// one, its intended start had already passed, because the previous
	// request's answer (or its loss timeout, or its connection) held the
	// loop past it. A request that was not yet due is sent when it is due;
	// a timer that wakes a little after the instant is no late start.
	Late uint64
	// MaxBehind is the most any request started after its intended start.
	MaxBehind time.Duration
}

// Merge adds o, another flow's counts, to c.
func (c *ScheduleCounts) Merge(o *ScheduleCounts) {
	c.Scheduled += o.Scheduled
	c.Sent += o.Sent
	c.Late += o.Late
	c.MaxBehind = max(c.MaxBehind, o.MaxBehind)
}

// Schedule is the open model's arrival schedule of one flow: every request
// has an intended start, fixed in advance by the arrival rate whatever the
// server does, and the loop charges each request's latency from it, so a
// slow answer is charged to every request queued behind it (no coordinated
// omission, as wrk2 and HdrHistogram put it).
//
// The schedule places requests on the axis of cumulative arrivals, u(t) =
// ∫ rate: a constant schedule at u = phase, phase+1, ...; a Poisson one at
// sums of exponential gaps of mean 1 (a Poisson process of the asked rate,
// ramps included, by the time-rescaling theorem). Each u is mapped back to
// a time through the piecewise-linear rate. Wait allocates nothing.
type Schedule struct {
	segs    []segment
	phase   float64
	poisson bool
	seed    uint64 // the Poisson draws' seed, and the flow's stream of it
	stream  uint64
	src     *rand.PCG
	rng     *rand.Rand

	u    float64       // the next request's place on the arrivals axis
	seg  int           // the segment u lies in (they are walked in order)
	next time.Duration // the next request's intended start; never: none
	// Counts is what the loop counted against the schedule.
	Counts ScheduleCounts
	sleep  sock.Sleeper
}

// never is the intended start of a request the schedule never places (the
// rate stays 0).
const never = time.Duration(math.MaxInt64)

// segment is a stretch of the schedule over which the rate moves linearly
// from r0 to r1; the last one holds its rate for ever (d is +Inf).
type segment struct {
	t0, d  float64 // start and length, in seconds
	r0, r1 float64 // the rates at its ends, per second
	u0     float64 // arrivals before its start
}

// span is how many arrivals the segment holds.
func (g *segment) span() float64 {
	if math.IsInf(g.d, 1) {
		if g.r0 > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return (g.r0 + g.r1) / 2 * g.d
}

// at is the time, in seconds, at which du arrivals into the segment have
// come: the root of r0·t + (r1-r0)/(2d)·t² = du, in the form that stays
// exact when the slope is 0 or small; +Inf if the rate never gets there.
func (g *segment) at(du float64) float64 {
	if du <= 0 {
		return g.t0
	}
	a := 0.0
	if !math.IsInf(g.d, 1) {
		a = (g.r1 - g.r0) / g.d
	}
	den := g.r0 + math.Sqrt(max(0, g.r0*g.r0+2*a*du))
	if den <= 0 {
		return math.Inf(1)
	}
	return g.t0 + 2*du/den
}

// NewSchedule returns flow's schedule (of flows) for requests arriving at
// rate per second over all the flows, moving through the stages of ramp
// from rate, and holding the last rate after them; each flow takes its
// share, 1/flows of the rate. A constant schedule deals the requests of
// one evenly spaced stream to the flows in turn; a Poisson one gives each
// flow a Poisson process of its share, drawn from seed.
func NewSchedule(rate float64, ramp []Stage, poisson bool, flow, flows int, seed uint64) *Schedule {
	n := float64(max(flows, 1))
	s := &Schedule{poisson: poisson, seed: seed, stream: uint64(flow)}
	t, u, r := 0.0, 0.0, rate/n
	for _, st := range ramp {
		g := segment{t0: t, d: st.Duration.Seconds(), r0: r, r1: st.Target / n, u0: u}
		if g.d <= 0 {
			r = g.r1
			continue
		}
		s.segs = append(s.segs, g)
		t, u, r = t+g.d, u+g.span(), g.r1
	}
	s.segs = append(s.segs, segment{t0: t, d: math.Inf(1), r0: r, r1: r, u0: u})
	if !poisson {
		s.phase = float64(flow) / n
	}
	s.src = rand.NewPCG(seed, s.stream)
	s.rng = rand.New(s.src)
	s.Reset()
	return s
}

// Reset starts the schedule over, with nothing counted.
func (s *Schedule) Reset() {
	s.Counts = ScheduleCounts{}
	s.seg = 0
	s.src.Seed(s.seed, s.stream)
	s.u = s.phase
	if s.poisson {
		s.u = s.rng.ExpFloat64()
	}
	s.place()
}

// place sets next to the intended start of the request at s.u.
func (s *Schedule) place() {
	for s.seg+1 < len(s.segs) && s.u >= s.segs[s.seg+1].u0 {
		s.seg++
	}
	g := &s.segs[s.seg]
	t := g.at(s.u - g.u0)
	if t >= float64(never)/1e9 {
		s.next = never
		return
	}
	s.next = time.Duration(math.Round(t * 1e9)) // to the nearest ns: k/rate lands on its instant
}

// advance moves to the next request.
func (s *Schedule) advance() {
	if s.poisson {
		s.u += s.rng.ExpFloat64()
	} else {
		s.u++
	}
	s.place()
}

// Next is the intended start of the next request, from the loop's start.
func (s *Schedule) Next() time.Duration { return s.next }

// Wait waits until the next request is due and returns its intended start
// (the instant its latency is charged from). free is when the loop was
// done with the request before (its answer, its loss timeout, its failed
// connection; 0 for the first), as an offset from start: if that was
// after the intended start, the request is late, and it is returned at
// once. Wait gives up, returning false, when the deadline dead (an offset
// from start) comes first or stop is set.
func (s *Schedule) Wait(start time.Time, free, dead time.Duration, stop *atomic.Bool) (time.Duration, bool) {
	due := s.next
	for {
		now := time.Since(start)
		if now >= dead || stop != nil && stop.Load() {
			return now, false
		}
		if now >= due {
			if free > due {
				s.Counts.Late++
			}
			s.Counts.MaxBehind = max(s.Counts.MaxBehind, now-due)
			s.Counts.Sent++
			s.advance()
			return due, true
		}
		s.sleep.Sleep(min(due, dead) - now) // at most a tick: stop is seen
	}
}

// Close counts the requests the schedule placed before end (an offset from
// the loop's start), at most limit of them (0: no limit): those sent and
// those the loop never came to.
func (s *Schedule) Close(end time.Duration, limit uint64) {
	n := s.Counts.Sent
	for s.next < end && (limit == 0 || n < limit) {
		n++
		s.advance()
	}
	s.Counts.Scheduled = n
}
