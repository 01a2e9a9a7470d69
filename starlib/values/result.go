package values

import (
	"fmt"

	"netscript/engine/result"
)

// NewResult wraps a result as a Starlark value.
func NewResult(r *result.Result) *Record {
	return NewRecord("result", r, func() string { return Summary(r) })
}

// Summary is the one-line form of a result that print() and the REPL show.
func Summary(r *result.Result) string {
	s := fmt.Sprintf("<result %s", r.Test)
	if r.Brand != "" {
		s += fmt.Sprintf(" %q", r.Brand)
	}
	if r.Failed() {
		return s + " FAILED: " + r.Error + ">"
	}
	s += fmt.Sprintf(" %.2f %s", r.Throughput, r.Units)
	if r.Latency != nil && r.Latency.Count > 0 {
		s += fmt.Sprintf(" p50=%.1fus p99=%.1fus", r.Latency.P50, r.Latency.P99)
	}
	if r.Units == result.UnitsBits {
		s += fmt.Sprintf(" (%d bytes in %.2fs", max(r.BytesSent, r.BytesReceived), r.Elapsed)
		if r.UDP != nil && r.UDP.LossPct != nil {
			s += fmt.Sprintf(", %.2f%% lost", *r.UDP.LossPct)
		}
	} else {
		s += fmt.Sprintf(" (%d transactions in %.2fs", r.Transactions, r.Elapsed)
	}
	var errs uint64
	for _, n := range r.Errors {
		errs += n
	}
	if errs > 0 {
		s += fmt.Sprintf(", %d errors", errs)
	}
	if sc := r.Schedule; sc != nil {
		s += fmt.Sprintf(", open model: %d of %d scheduled late", sc.Late, sc.Scheduled)
		if sc.Sent < sc.Scheduled {
			s += fmt.Sprintf(", %d never sent", sc.Scheduled-sc.Sent)
		}
	}
	if n := len(r.Flows); n > 1 {
		s += fmt.Sprintf(", %d flows", n)
		if r.StartSkew != nil {
			s += fmt.Sprintf(", start skew %.0fus", *r.StartSkew*1e6)
		}
	}
	return s + ")>"
}
