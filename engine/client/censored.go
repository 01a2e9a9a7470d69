package client

import (
	"netscript/engine/result"
)

// censored fills each flow's and the test's result.censored (RR tests)
// from the loops' counts.
func (r *run) censored(res *result.Result, w *worker) {
	if !r.spec.Workload.RR() {
		return
	}
	top := &result.Censored{}
	for i, f := range w.flows {
		if i >= len(res.Flows) {
			break
		}
		c := f.counts().Censored
		fc := result.CensoredOf(c.Oldest, c.Sum)
		res.Flows[i].Censored = fc
		top.Merge(fc)
	}
	res.Censored = top
}

// noteCensored notes, after the other notes, a stall the deadline cut
// short: an unanswered transaction older than the slowest completed one.
func noteCensored(res *result.Result) {
	if note := result.CensoredNote(res.Censored, res.Latency); note != "" {
		res.Notes = append(res.Notes, note)
	}
}
