package result

// Schedule is how an open-model test kept to its arrival schedule
// (arrival_rate, arrival_ramp): every request had an intended start, and
// its latency was charged from it. Latencies and times are in
// microseconds, as Latency's are.
type Schedule struct {
	// Scheduled is how many requests the schedule placed inside the
	// measured interval (at most the transaction count).
	Scheduled uint64 `json:"scheduled"`
	// Sent is how many of them were started; the rest were due when the
	// test ended, with the client still behind.
	Sent uint64 `json:"sent"`
	// Late is how many started after their intended start because the
	// client was still busy with an earlier request (its answer, its loss
	// timeout, its connection) at that instant.
	Late uint64 `json:"late"`
	// OnTime is the fraction of the scheduled requests that started on
	// time: (sent - late) / scheduled; None when none was scheduled.
	OnTime *float64 `json:"on_time"`
	// MaxBehind is the most any request started after its intended start,
	// µs.
	MaxBehind float64 `json:"max_behind"`
}

// Add adds o, another flow's schedule, to s; call Finish after the last.
func (s *Schedule) Add(o *Schedule) {
	s.Scheduled += o.Scheduled
	s.Sent += o.Sent
	s.Late += o.Late
	s.MaxBehind = max(s.MaxBehind, o.MaxBehind)
	s.Finish()
}

// Finish sets OnTime from the counts.
func (s *Schedule) Finish() {
	s.OnTime = nil
	if s.Scheduled > 0 {
		f := float64(s.Sent-s.Late) / float64(s.Scheduled)
		s.OnTime = &f
	}
}

// aggregateSchedule sums the schedules of open-model results (nil unless
// every result has one): aggregate() of such tests is one open model of
// their arrivals together.
func aggregateSchedule(rs []*Result) *Schedule {
	s := &Schedule{}
	for _, r := range rs {
		if r.Schedule == nil {
			return nil
		}
		s.Add(r.Schedule)
	}
	return s
}
