package spec

import (
	"math"
	"time"
)

// The options of the open model: an arrival schedule for the request/
// response workloads (Workload.Takes lists them).
const (
	OptArrivalRate = "arrival_rate"
	OptArrival     = "arrival"
	OptArrivalRamp = "arrival_ramp"
)

// The kinds of arrival schedule (Arrival.Kind).
const (
	ArrivalConstant = "constant" // evenly spaced requests (the default)
	ArrivalPoisson  = "poisson"  // a Poisson process: exponential gaps
)

// MaxArrivalRate bounds arrival_rate and the rates of a ramp's stages
// (requests per second over all the flows).
const MaxArrivalRate = 1e7

// MaxStages bounds the stages of an arrival ramp.
const MaxStages = 1000

// Arrival is the open model's schedule of a request/response test: every
// request has an intended start, set by the rate alone, and its latency
// runs from that instant, so a slow answer is charged to the requests
// queued behind it (wrk2's and k6's arrival-rate executors). The zero
// value is the closed model: each request follows the previous answer.
type Arrival struct {
	// Rate is the requests per second over all the flows (each flow takes
	// its share), or where the ramp starts from; 0 with a ramp starts it
	// from 0.
	Rate float64
	// Kind is ArrivalConstant or ArrivalPoisson; "" is constant.
	Kind string
	// Ramp, if set, moves the rate in straight lines from stage to stage
	// (k6's ramping-arrival-rate); after the last the rate holds.
	Ramp []Stage
}

// Stage is one stage of an arrival ramp: the rate moves from the one
// before it to Target over Duration.
type Stage struct {
	Target   float64
	Duration time.Duration
}

// Given reports whether any option of the open model was given.
func (a *Arrival) Given() bool { return a.Rate != 0 || a.Kind != "" || len(a.Ramp) > 0 }

// Poisson reports whether the schedule is a Poisson process.
func (a *Arrival) Poisson() bool { return a.Kind == ArrivalPoisson }

// Final is the rate the schedule holds after its ramp.
func (a *Arrival) Final() float64 {
	if n := len(a.Ramp); n > 0 {
		return a.Ramp[n-1].Target
	}
	return a.Rate
}

// RampLength is how long the ramp's stages last together.
func (a *Arrival) RampLength() time.Duration {
	var d time.Duration
	for _, st := range a.Ramp {
		d += st.Duration
	}
	return d
}

// Open reports whether the test runs the open model (an arrival schedule).
func (s *Spec) Open() bool { return s.Arrival.Given() }

// validateArrival checks the open model's options.
func (s *Spec) validateArrival() error {
	a := &s.Arrival
	if !a.Given() {
		return nil
	}
	okRate := func(r float64) bool { return !math.IsNaN(r) && r >= 0 && r <= MaxArrivalRate }
	if !okRate(a.Rate) {
		return bad(OptArrivalRate, "must be a number of requests per second between 0 and %g, got %v", float64(MaxArrivalRate), a.Rate)
	}
	if a.Kind != "" && a.Kind != ArrivalConstant && a.Kind != ArrivalPoisson {
		return bad(OptArrival, "must be %q or %q, got %q", ArrivalConstant, ArrivalPoisson, a.Kind)
	}
	if len(a.Ramp) > MaxStages {
		return bad(OptArrivalRamp, "at most %d stages, got %d", MaxStages, len(a.Ramp))
	}
	positive := a.Rate > 0
	for i, st := range a.Ramp {
		if !okRate(st.Target) {
			return bad(OptArrivalRamp, "stage %d: the rate must be between 0 and %g requests per second, got %v", i+1, float64(MaxArrivalRate), st.Target)
		}
		if st.Duration <= 0 {
			return bad(OptArrivalRamp, "stage %d: the duration must be positive, got %v", i+1, st.Duration)
		}
		positive = positive || st.Target > 0
	}
	if !positive {
		return bad(OptArrivalRate, "an arrival schedule needs a rate: give arrival_rate (requests per second) or an arrival_ramp that rises above 0")
	}
	if s.Duration == 0 && a.Final() == 0 {
		return bad(OptArrivalRamp, "ends at rate 0 in a test that ends by its transaction count: it would never end; give a duration")
	}
	if s.Rate > 0 {
		return bad("rate", "not with an arrival schedule: rate paces the closed model, arrival_rate is the open model; give one of them")
	}
	if s.Burst != 0 {
		return bad(OptBurst, "not with an arrival schedule: each flow keeps one request in flight and sends the next at its intended start (or, late, as soon as the answer comes); give flows for more at once")
	}
	return nil
}

// MaxScheduleGap bounds how long one flow of the test may wait on its
// schedule with nothing to do: the longest gap between two of its
// requests (with a Poisson schedule, ten times the mean gap at the
// lowest rate), or the duration when the rate falls to 0. The stall check
// adds it to its bound.
func (s *Spec) MaxScheduleGap() time.Duration {
	a := &s.Arrival
	if !a.Given() {
		return 0
	}
	lowest := a.Rate
	if len(a.Ramp) > 0 && a.Rate == 0 {
		lowest = 0
	}
	for _, st := range a.Ramp {
		lowest = min(lowest, st.Target)
	}
	n := float64(s.FlowCount())
	if lowest <= 0 {
		// A ramp through 0: the longest gap is at most the test's, or,
		// for a test that ends by count, the ramp's (its final rate is
		// positive), plus one gap at the final rate.
		if s.Duration > 0 {
			return s.Duration
		}
		return a.RampLength() + time.Duration(float64(time.Second)*n/a.Final())
	}
	gap := float64(time.Second) * n / lowest
	if a.Poisson() {
		gap *= 10
	}
	return time.Duration(min(gap, float64(math.MaxInt64/2)))
}
