package mux

import "time"

// endAt is when flow f's interval ended for the transactions it had in
// flight: the deadline if that ended it, else now (Stop).
func (f *Flow) endAt(byDeadline bool, dead time.Duration, start time.Time) time.Duration {
	if byDeadline || f.late {
		return dead
	}
	return time.Since(start)
}

// censorRing notes the ages at `at` of f's requests still in flight (its
// ring of send times) as censored, unless the flow failed (then they are
// not discarded either).
func (f *Flow) censorRing(at time.Duration) {
	if f.Err == nil {
		f.Result.Censored.AddRing(at, f.sent, f.head, f.inflight)
	}
}
