package client

import (
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// arrival is flow i's share of the test's arrival schedule, or nil for
// the closed model.
func (w *worker) arrival(s *spec.Spec, i int) *workload.Schedule {
	a := &s.Arrival
	if !a.Given() || !s.Workload.RR() {
		return nil
	}
	ramp := make([]workload.Stage, len(a.Ramp))
	for k, st := range a.Ramp {
		ramp[k] = workload.Stage{Target: st.Target, Duration: st.Duration}
	}
	return workload.NewSchedule(a.Rate, ramp, a.Poisson(), i, s.FlowCount(), w.seed)
}

// addSchedule puts each flow's count of its schedule in its figures and
// their sum in result.schedule, for an open-model test.
func (r *run) addSchedule(res *result.Result, w *worker) {
	if !r.spec.Open() {
		return
	}
	total := &result.Schedule{}
	for i, f := range w.flows {
		c := f.counts().Schedule
		fs := &result.Schedule{Scheduled: c.Scheduled, Sent: c.Sent, Late: c.Late, MaxBehind: float64(c.MaxBehind.Nanoseconds()) / 1e3}
		fs.Finish()
		res.Flows[i].Schedule = fs
		total.Add(fs)
	}
	total.Finish()
	res.Schedule = total
}

// arrivalConfig is the arrival schedule in force, as config reports it.
func arrivalConfig(s *spec.Spec, cfg *result.Config) {
	a := &s.Arrival
	if !a.Given() {
		return
	}
	cfg.ArrivalRate, cfg.Arrival = a.Rate, spec.ArrivalConstant
	if a.Poisson() {
		cfg.Arrival = spec.ArrivalPoisson
	}
	for _, st := range a.Ramp {
		cfg.ArrivalRamp = append(cfg.ArrivalRamp, [2]float64{st.Target, st.Duration.Seconds()})
	}
}
