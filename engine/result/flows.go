package result

import (
	"fmt"
	"math"

	"netscript/engine/hist"
)

// Flow is one flow's own figures in a test: what one netperf of a set of
// netperfs started together would have printed.
type Flow struct {
	Index         int               `json:"index"` // 0-based, in the order of the lists given for local, local_port, data_port
	Test          string            `json:"test"`
	Throughput    float64           `json:"throughput"`
	Units         string            `json:"units"`
	Elapsed       float64           `json:"elapsed"`
	Transactions  uint64            `json:"transactions"`
	Discarded     uint64            `json:"discarded"`
	BytesSent     uint64            `json:"bytes_sent"`
	BytesReceived uint64            `json:"bytes_received"`
	Connects      uint64            `json:"connects"` // tcp_crr: connections made
	Latency       *Latency          `json:"latency"`
	Errors        map[string]uint64 `json:"errors"`
	LocalAddress  string            `json:"local_address"`
	LocalPort     int               `json:"local_port"` // the flow's source port; 0 for tcp_crr, which has one per connection
	RemoteAddress string            `json:"remote_address"`
	DataPort      int               `json:"data_port"` // the server's data port this flow went to
	// Began is when the flow began its first transaction (streams: its
	// first send or receive), in seconds from the test's common start.
	Began *float64 `json:"began"`
	// First is when the flow's first transaction completed (streams: its
	// first send or receive moved data), in seconds from the test's common
	// start; None if it completed none.
	First *float64 `json:"first"`
	// Remote is what the server counted on this flow's connection; None
	// when the server cannot tell flows apart (tcp_crr and the UDP tests,
	// whose server side is one socket for all flows).
	Remote *FlowRemote `json:"remote"`
	Error  string      `json:"error"` // why the flow stopped early; "" if it did not

	Hist *hist.Histogram `json:"-"`

	Censored *Censored `json:"censored"` // RR tests: this flow's transactions discarded at the end; nil for streams
	// TCP is the client's TCP_INFO figures of this flow's connection(s).
	TCP *TCP `json:"tcp"`
	// Interim is this flow's own interim samples, with interval: what the
	// test's Interim holds, from this flow's counts alone and at the
	// instants it took them (one flow's are the test's). Over sample k the
	// flows' work (throughput × interval), retransmits and cwnd add up to
	// the test's sample k; a flow that ran on past the others has samples
	// beyond the test's. Empty without interval.
	Interim []Sample `json:"interim"`
	// Schedule is how this flow kept to its share of the arrival
	// schedule; None for the closed model.
	Schedule *Schedule `json:"schedule"`
	// MPTCP is this flow's connection's subflows, with protocol="mptcp"
	// (after the fields of the release before; left out when nil, so a
	// TCP flow's record is as before).
	MPTCP *MPTCP `json:"mptcp,omitempty"`
}

// FlowRemote is the server's count of one flow's connection.
type FlowRemote struct {
	Transactions  uint64 `json:"transactions"`
	BytesSent     uint64 `json:"bytes_sent"`
	BytesReceived uint64 `json:"bytes_received"`
	RecvCalls     uint64 `json:"recv_calls"`
	SendCalls     uint64 `json:"send_calls"`
	TCP           *TCP   `json:"tcp"` // the server's TCP_INFO figures of the connection
}

// Skew returns the spread between the earliest and the latest first
// transaction of flows, each offset by the start of its test (seconds),
// or nil if no flow completed a transaction.
func Skew(starts []float64, flows [][]*Flow) *float64 {
	return SkewOf(starts, flows, func(f *Flow) *float64 { return f.Began })
}

// FirstSkew is the spread of the flows' first completed transactions (see
// Skew for the arguments).
func FirstSkew(starts []float64, flows [][]*Flow) *float64 {
	return SkewOf(starts, flows, func(f *Flow) *float64 { return f.First })
}

// SkewOf is the spread of the instant at(f) of every flow that has one,
// each group's offsets taken from its start in starts.
func SkewOf(starts []float64, flows [][]*Flow, at func(*Flow) *float64) *float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, fs := range flows {
		for _, f := range fs {
			x := at(f)
			if x == nil {
				continue
			}
			t := starts[i] + *x
			lo, hi = math.Min(lo, t), math.Max(hi, t)
		}
	}
	if math.IsInf(lo, 0) {
		return nil
	}
	d := hi - lo
	return &d
}

// AddErrors adds the counts of src to dst.
func AddErrors(dst, src map[string]uint64) {
	for k, v := range src {
		dst[k] += v
	}
}

// Aggregate combines results of one workload kind, as if they were the
// flows of one test: counts, errors and throughput are summed, latency
// comes from the merged histograms (None if any result lacks one), elapsed
// is the longest, flows are every result's flows in order, start is the
// earliest and start_skew the spread of every flow's first transaction.
// Results of different kinds cannot be combined.
func Aggregate(rs []*Result) (*Result, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("no results to aggregate")
	}
	first := rs[0]
	out := &Result{
		Test: first.Test, Brand: first.Brand, Units: first.Units, Config: first.Config,
		Errors: map[string]uint64{}, Interim: []Sample{}, Flows: []*Flow{}, Start: first.Start,
	}
	out.Config.Flows = 0
	var starts []float64
	var flows [][]*Flow
	var rem *Remote
	for i, r := range rs {
		if r == nil {
			return nil, fmt.Errorf("results[%d] is missing", i)
		}
		if r.Test != first.Test {
			return nil, fmt.Errorf("results[%d] is %s and results[0] is %s: aggregate combines results of one kind", i, r.Test, first.Test)
		}
		if r.Brand != first.Brand {
			out.Brand = ""
		}
		out.Throughput += r.Throughput
		out.Add(r.Totals())
		out.Censored = mergeCensored(out.Censored, r.Censored)
		out.Start = math.Min(out.Start, r.Start)
		out.Config.Flows += max(r.Config.Flows, 1)
		starts = append(starts, r.Start)
		flows = append(flows, r.Flows)
		for _, f := range r.Flows {
			g := *f
			g.Index = len(out.Flows)
			out.Flows = append(out.Flows, &g)
		}
		if r.Remote != nil {
			if rem == nil {
				rem = &Remote{Errors: map[string]uint64{}}
			}
			rem.Add(r.Remote)
		}
	}
	out.Remote = rem
	aggregateTCP(out, rs)
	out.UDP = aggregateUDP(rs)
	out.Schedule = aggregateSchedule(rs)
	out.StartSkew = Skew(starts, flows)
	out.FirstSkew = FirstSkew(starts, flows)
	h, err := MergeHist(rs)
	if err != nil {
		return nil, err
	}
	if h != nil {
		out.Hist, out.Latency = h, LatencyOf(h)
	}
	out.Notes = append(out.Notes, fmt.Sprintf("aggregate of %d %s results: throughput and counts are summed, latency is over every transaction", len(rs), first.Test))
	return out, nil
}

// aggregateUDP sums the datagram counts of udp_stream results (nil unless
// every result has them); what was received and lost only if every result
// knows it.
func aggregateUDP(rs []*Result) *UDP {
	u := &UDP{}
	var got uint64
	var lost int64
	known := true
	for _, r := range rs {
		if r.UDP == nil {
			return nil
		}
		u.Sent += r.UDP.Sent
		u.Refused += r.UDP.Refused
		if r.UDP.Received == nil || r.UDP.Lost == nil {
			known = false
			continue
		}
		got += *r.UDP.Received
		lost += *r.UDP.Lost
	}
	if known {
		pct := 0.0
		if u.Sent > 0 {
			pct = 100 * float64(lost) / float64(u.Sent)
		}
		u.Received, u.Lost, u.LossPct = &got, &lost, &pct
	}
	return u
}

// appendNew appends the strings of add that dst lacks.
func appendNew(dst []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, d := range dst {
			if d == a {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, a)
		}
	}
	return dst
}
