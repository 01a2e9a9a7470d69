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
	if res.Elapsed <= 0 {
		return 0
	}
	if !k.Bulk {
		return float64(res.Transactions) / res.Elapsed
	}
	bytes := res.BytesSent
	switch {
	case k.ServerSends:
		bytes = res.BytesReceived
	case res.Remote != nil:
		bytes = res.Remote.BytesReceived
	}
	return float64(bytes) * 8 / 1e6 / res.Elapsed
}
