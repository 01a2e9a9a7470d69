package workloads

import (
	"fmt"

	"go.starlark.net/starlark"

	"netscript/engine/spec"
	"netscript/starlib/values"
)

// arrivalOptions are the open model's options (engine/spec/arrival.go):
// an arrival schedule for the request/response tests.
var arrivalOptions = []option{
	{spec.OptArrivalRate, "none (closed model)", "requests per second over all the flows (each flow takes its share), " +
		"each sent at its intended start whatever the server does, with its latency charged from that instant (wrk2 -R, " +
		"k6's constant-arrival-rate); a request still waiting on an earlier answer at its instant goes as soon as it can " +
		"and counts in result.schedule.late; with arrival_ramp, the rate the ramp starts from",
		func(s *spec.Spec, v starlark.Value) error {
			f, ok := values.Number(v)
			if !ok {
				return fmt.Errorf("want a number per second, got %s", v.Type())
			}
			if !(f > 0) {
				return fmt.Errorf("must be positive, got %v (leave it out for the closed model)", v)
			}
			s.Arrival.Rate = f
			return nil
		}},
	{spec.OptArrival, "\"constant\"", "how the requests of arrival_rate arrive: \"constant\", evenly spaced, or \"poisson\", " +
		"a Poisson process of that rate (exponential gaps)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Arrival.Kind, err = toString(v); return }},
	{spec.OptArrivalRamp, "none", "a list of (rate, duration) stages: over each the arrival rate moves in a straight line " +
		"from the one before (arrival_rate, or 0) to rate, as k6's ramping-arrival-rate; after the last it holds; " +
		"give duration as the stages' sum to end with them",
		func(s *spec.Spec, v starlark.Value) error {
			l, ok := v.(starlark.Indexable)
			if !ok || isString(v) {
				return fmt.Errorf("want a list of (rate, duration) stages, got %s", v.Type())
			}
			if l.Len() == 0 {
				return fmt.Errorf("an empty list: give (rate, duration) stages")
			}
			s.Arrival.Ramp = make([]spec.Stage, 0, min(l.Len(), spec.MaxStages+1))
			for i := 0; i < l.Len() && i <= spec.MaxStages; i++ {
				st, ok := l.Index(i).(starlark.Indexable)
				if !ok || isString(l.Index(i)) || st.Len() != 2 {
					return fmt.Errorf("stage %d: want (rate, duration), got %s", i+1, l.Index(i).Type())
				}
				rate, ok := values.Number(st.Index(0))
				if !ok {
					return fmt.Errorf("stage %d: want a number per second for the rate, got %s", i+1, st.Index(0).Type())
				}
				d, err := toDuration(st.Index(1))
				if err != nil {
					return fmt.Errorf("stage %d: %v", i+1, err)
				}
				s.Arrival.Ramp = append(s.Arrival.Ramp, spec.Stage{Target: rate, Duration: d})
			}
			return nil
		}},
}
