package result

import "testing"

// TestAggregateSchedule: aggregate() of open-model results sums what they
// scheduled, sent and sent late, keeps the worst max_behind and recomputes
// on_time; a closed-model result among them leaves the aggregate without
// one.
func TestAggregateSchedule(t *testing.T) {
	sched := func(n, sent, late uint64, behind float64) *Schedule {
		s := &Schedule{Scheduled: n, Sent: sent, Late: late, MaxBehind: behind}
		s.Finish()
		return s
	}
	a, b := rr("TCP_RR", 100, 10, 1000, 0.001), rr("TCP_RR", 100, 10, 1000, 0.001)
	a.Schedule, b.Schedule = sched(100, 100, 10, 500), sched(300, 290, 20, 9000)
	out, err := Aggregate([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	s := out.Schedule
	if s == nil || s.Scheduled != 400 || s.Sent != 390 || s.Late != 30 || s.MaxBehind != 9000 || s.OnTime == nil || *s.OnTime != 360.0/400 {
		t.Errorf("aggregate schedule %+v", s)
	}
	b.Schedule = nil
	if out, err = Aggregate([]*Result{a, b}); err != nil || out.Schedule != nil {
		t.Errorf("with a closed-model result: %+v, %v", out.Schedule, err)
	}
	if z := sched(0, 0, 0, 0); z.OnTime != nil {
		t.Errorf("on_time of nothing scheduled: %v, want None", *z.OnTime)
	}
}
