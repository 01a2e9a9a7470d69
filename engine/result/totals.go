package result

import "math"

// Totals are the counts that add up: over the flows of one test (the
// client builds its result so) and over results aggregated as if they were
// flows of one test (Aggregate). Both sum through Add, so a figure is
// never summed two ways.
type Totals struct {
	Transactions, Discarded  uint64
	BytesSent, BytesReceived uint64
	SendCalls, RecvCalls     uint64
	Drained                  uint64
	Elapsed                  float64 // the longest, not a sum
	Errors                   map[string]uint64
}

// Totals returns r's counts.
func (r *Result) Totals() Totals {
	return Totals{Transactions: r.Transactions, Discarded: r.Discarded, BytesSent: r.BytesSent, BytesReceived: r.BytesReceived,
		SendCalls: r.SendCalls, RecvCalls: r.RecvCalls, Drained: r.Drained, Elapsed: r.Elapsed, Errors: r.Errors}
}

// Add adds t's counts to r's: sums, the errors merged, the longest
// elapsed.
func (r *Result) Add(t Totals) {
	r.Transactions += t.Transactions
	r.Discarded += t.Discarded
	r.BytesSent += t.BytesSent
	r.BytesReceived += t.BytesReceived
	r.SendCalls += t.SendCalls
	r.RecvCalls += t.RecvCalls
	r.Drained += t.Drained
	r.Elapsed = math.Max(r.Elapsed, t.Elapsed)
	r.Errors = mergeErrors(r.Errors, t.Errors)
}

// Add adds the far end's counts o to r's, the one way remote counts are
// summed (over a netserver's flows, and by Aggregate): sums, the errors
// merged, the longest elapsed, each peer and each unreported field listed
// once. TCP is not summed here: the TCP_INFO figures combine apart.
func (r *Remote) Add(o *Remote) {
	r.Transactions += o.Transactions
	r.BytesSent += o.BytesSent
	r.BytesReceived += o.BytesReceived
	r.Accepts += o.Accepts
	r.SendCalls += o.SendCalls
	r.RecvCalls += o.RecvCalls
	r.Elapsed = math.Max(r.Elapsed, o.Elapsed)
	r.Errors = mergeErrors(r.Errors, o.Errors)
	r.Peers = appendNew(r.Peers, o.Peers...)
	r.Unreported = appendNew(r.Unreported, o.Unreported...)
}

// mergeErrors adds src's counts to dst, making dst when it is nil and
// there is something to add, and returns it.
func mergeErrors(dst, src map[string]uint64) map[string]uint64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]uint64, len(src))
	}
	AddErrors(dst, src)
	return dst
}
