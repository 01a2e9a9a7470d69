package client

import (
	"netscript/engine/result"
	"netscript/engine/spec"
)

// topThroughput is a test's throughput from its own top-level fields, so
// anyone can recompute it from the result: the total counted over the
// union of the flows' measured intervals. Every flow's interval begins at
// the common start, so their union is the longest, which is the top's
// elapsed. RR tests: transactions / elapsed. Streams: 10^6 bits/s of what
// the receiver counted: remote.bytes_received for tests the client sends
// (bytes_sent without a control connection, as netperf -N assumes, or
// before the server's results are in), bytes_received for tcp_maerts. Each
// flow keeps its own figure over its own interval (flowThroughput), so the
// flows' figures need not sum to the top's.
func topThroughput(k *spec.Workload, res *result.Result) float64 {
	c := counted{elapsed: res.Elapsed, transactions: res.Transactions, sent: res.BytesSent, received: res.BytesReceived}
	if res.Remote != nil {
		c.remoteReceived, c.haveRemote = res.Remote.BytesReceived, true
	}
	return c.throughput(k)
}

// counted is what a throughput is computed from, at the top or of one
// flow: one rule for both, so that each recomputes from its own fields.
type counted struct {
	elapsed        float64
	transactions   uint64
	sent, received uint64
	remoteReceived uint64
	haveRemote     bool // remoteReceived is the server's count
}

// throughput is transactions per second for RR tests; for streams 10^6
// bits/s of what the receiver counted: received for tests the server
// sends, else the server's count when known, else what was sent.
func (c counted) throughput(w *spec.Workload) float64 {
	if c.elapsed <= 0 {
		return 0
	}
	if !w.Bulk {
		return float64(c.transactions) / c.elapsed
	}
	bytes := c.sent
	switch {
	case w.ServerSends:
		bytes = c.received
	case c.haveRemote:
		bytes = c.remoteReceived
	}
	return float64(bytes) * 8 / 1e6 / c.elapsed
}
