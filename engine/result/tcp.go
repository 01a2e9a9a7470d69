package result

import "math"

// TCPConn is one connection's TCP_INFO over the part of its life that was
// measured: the cumulative counters are differences from the reading at
// the start (for a connection per transaction, from its opening), the
// others are the reading at the end.
type TCPConn struct {
	Retrans       uint64 // segments retransmitted (tcpi_total_retrans)
	BytesRetrans  uint64
	RTT, RTTVar   uint32 // µs
	MinRTT        uint32 // µs; 0 or ~0: no sample
	Cwnd          uint32 // segments
	Ssthresh      uint32 // segments; TCPInfiniteSsthresh: still in slow start
	MSS           uint32
	PacingRate    uint64 // bytes/s, as the kernel keeps it
	DeliveryRate  uint64 // bytes/s
	BusyTime      uint64 // µs
	RwndLimited   uint64 // µs
	SndbufLimited uint64 // µs
	Reordering    uint32
	Lost, Unacked uint32
	CAState       uint8
	Congestion    [16]byte // the algorithm's name, NUL padded
}

// TCPInfiniteSsthresh is the kernel's ssthresh before the first loss.
const TCPInfiniteSsthresh = 0x7fffffff

// TCPSums accumulates TCPConn readings so the figures of many
// connections (flows, or every tcp_crr connection) merge exactly. Adding
// allocates nothing, so a per-connection loop may call it.
type TCPSums struct {
	Conns         uint64    `json:"conns"`
	Retrans       uint64    `json:"retrans"`
	BytesRetrans  uint64    `json:"bytes_retrans"`
	RTTConns      uint64    `json:"rtt_conns"` // connections with RTT samples (an RTT and a minimum)
	RTT           uint64    `json:"rtt"`       // sums over RTTConns, µs
	RTTMax        uint32    `json:"rtt_max"`
	RTTVar        uint64    `json:"rttvar"`
	MinRTT        uint64    `json:"min_rtt"`
	Cwnd          uint64    `json:"cwnd"`
	CwndMax       uint32    `json:"cwnd_max"`
	SsthreshConns uint64    `json:"ssthresh_conns"` // connections past slow start
	Ssthresh      uint64    `json:"ssthresh"`
	MSS           uint64    `json:"mss"`
	PacingRate    uint64    `json:"pacing_rate"` // sums of bytes/s
	DeliveryRate  uint64    `json:"delivery_rate"`
	BusyTime      uint64    `json:"busy_time"` // µs
	RwndLimited   uint64    `json:"rwnd_limited"`
	SndbufLimited uint64    `json:"sndbuf_limited"`
	SpanNs        uint64    `json:"span_ns"` // the time the busy figures are a fraction of, summed over concurrent connections
	Reordering    uint64    `json:"reordering"`
	Lost          uint64    `json:"lost"`
	Unacked       uint64    `json:"unacked"`
	CAStates      [5]uint64 `json:"ca_states"`  // connections by tcpi_ca_state at the end
	Congestion    string    `json:"congestion"` // "" none yet; "mixed" when connections differ
}

// Add adds one connection's reading.
func (s *TCPSums) Add(c *TCPConn) {
	s.Conns++
	s.Retrans += c.Retrans
	s.BytesRetrans += c.BytesRetrans
	// The RTT figures are means over the same connections: those with
	// both an RTT and a minimum RTT. The kernel sets both from the same
	// samples, but a reading with one and not the other would otherwise
	// count in RTTConns with nothing added to min_rtt's sum, pulling its
	// mean down.
	if c.RTT > 0 && c.MinRTT != 0 && c.MinRTT != math.MaxUint32 {
		s.RTTConns++
		s.RTT += uint64(c.RTT)
		s.RTTVar += uint64(c.RTTVar)
		s.MinRTT += uint64(c.MinRTT)
		s.RTTMax = max(s.RTTMax, c.RTT)
	}
	s.Cwnd += uint64(c.Cwnd)
	s.CwndMax = max(s.CwndMax, c.Cwnd)
	if c.Ssthresh > 0 && c.Ssthresh < TCPInfiniteSsthresh {
		s.SsthreshConns++
		s.Ssthresh += uint64(c.Ssthresh)
	}
	s.MSS += uint64(c.MSS)
	s.PacingRate += c.PacingRate
	s.DeliveryRate += c.DeliveryRate
	s.BusyTime += c.BusyTime
	s.RwndLimited += c.RwndLimited
	s.SndbufLimited += c.SndbufLimited
	s.Reordering += uint64(c.Reordering)
	s.Lost += uint64(c.Lost)
	s.Unacked += uint64(c.Unacked)
	if int(c.CAState) < len(s.CAStates) {
		s.CAStates[c.CAState]++
	}
	name := c.Congestion[:clen(c.Congestion[:])]
	switch {
	case s.Conns == 1:
		s.Congestion = string(name) // once per flow
	case s.Congestion != string(name): // compared without a copy
		s.Congestion = "mixed"
	}
}

// Merge adds the sums of o.
func (s *TCPSums) Merge(o *TCPSums) {
	if o == nil || o.Conns == 0 {
		return
	}
	name := o.Congestion
	first := s.Conns == 0
	s.Conns += o.Conns
	s.Retrans += o.Retrans
	s.BytesRetrans += o.BytesRetrans
	s.RTTConns += o.RTTConns
	s.RTT += o.RTT
	s.RTTMax = max(s.RTTMax, o.RTTMax)
	s.RTTVar += o.RTTVar
	s.MinRTT += o.MinRTT
	s.Cwnd += o.Cwnd
	s.CwndMax = max(s.CwndMax, o.CwndMax)
	s.SsthreshConns += o.SsthreshConns
	s.Ssthresh += o.Ssthresh
	s.MSS += o.MSS
	s.PacingRate += o.PacingRate
	s.DeliveryRate += o.DeliveryRate
	s.BusyTime += o.BusyTime
	s.RwndLimited += o.RwndLimited
	s.SndbufLimited += o.SndbufLimited
	s.SpanNs += o.SpanNs
	s.Reordering += o.Reordering
	s.Lost += o.Lost
	s.Unacked += o.Unacked
	for i := range s.CAStates {
		s.CAStates[i] += o.CAStates[i]
	}
	switch {
	case first:
		s.Congestion = name
	case s.Congestion != name:
		s.Congestion = "mixed"
	}
}

// clen is the length of the NUL-terminated name in b.
func clen(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

// TCP is the kernel's view of a test's TCP connections (TCP_INFO) on one
// end, over the measured interval: sums where a sum means something,
// means over the connections where it does not (with a _max companion).
type TCP struct {
	Connections           uint64  `json:"connections"`             // connections read
	Retransmits           uint64  `json:"retransmits"`             // segments retransmitted over the interval (tcpi_total_retrans)
	BytesRetrans          uint64  `json:"bytes_retrans"`           // bytes retransmitted over the interval
	RTT                   float64 `json:"rtt"`                     // smoothed RTT, µs, mean over connections
	RTTMax                float64 `json:"rtt_max"`                 // the largest connection's smoothed RTT, µs
	RTTVar                float64 `json:"rttvar"`                  // µs, mean
	MinRTT                float64 `json:"min_rtt"`                 // µs, mean of each connection's minimum
	Cwnd                  float64 `json:"cwnd"`                    // congestion window, segments, mean
	CwndMax               float64 `json:"cwnd_max"`                // segments, the largest
	Ssthresh              float64 `json:"ssthresh"`                // segments, mean over connections past slow start; 0: none
	MSS                   float64 `json:"mss"`                     // bytes, mean
	PacingRate            float64 `json:"pacing_rate"`             // bits/s, mean
	DeliveryRate          float64 `json:"delivery_rate"`           // bits/s, mean
	BusyTime              uint64  `json:"busy_time"`               // µs with data in flight, summed
	BusyFraction          float64 `json:"busy_fraction"`           // busy_time over the interval (per connection)
	RwndLimited           uint64  `json:"rwnd_limited"`            // µs limited by the peer's receive window, summed
	RwndLimitedFraction   float64 `json:"rwnd_limited_fraction"`   // of the interval
	SndbufLimited         uint64  `json:"sndbuf_limited"`          // µs limited by the send buffer, summed
	SndbufLimitedFraction float64 `json:"sndbuf_limited_fraction"` // of the interval
	Reordering            float64 `json:"reordering"`              // tcpi_reordering, mean
	Lost                  uint64  `json:"lost"`                    // segments thought lost at the end, summed
	Unacked               uint64  `json:"unacked"`                 // segments in flight at the end, summed
	CAState               string  `json:"ca_state"`                // open, disorder, cwr, recovery, loss, or mixed
	Congestion            string  `json:"congestion"`              // the algorithm ("cubic"), or mixed

	// Sums keeps what TCP was computed from, so results merge exactly.
	Sums TCPSums `json:"-"`
}

// caStates names tcpi_ca_state's values.
var caStates = [5]string{"open", "disorder", "cwr", "recovery", "loss"}

// TCPOf computes the figures from sums; nil when no connection was read.
func TCPOf(s *TCPSums) *TCP {
	if s == nil || s.Conns == 0 {
		return nil
	}
	n := float64(s.Conns)
	t := &TCP{
		Connections: s.Conns, Retransmits: s.Retrans, BytesRetrans: s.BytesRetrans,
		RTTMax: float64(s.RTTMax), Cwnd: float64(s.Cwnd) / n, CwndMax: float64(s.CwndMax),
		MSS: float64(s.MSS) / n, PacingRate: 8 * float64(s.PacingRate) / n, DeliveryRate: 8 * float64(s.DeliveryRate) / n,
		BusyTime: s.BusyTime, RwndLimited: s.RwndLimited, SndbufLimited: s.SndbufLimited,
		Reordering: float64(s.Reordering) / n, Lost: s.Lost, Unacked: s.Unacked, Congestion: s.Congestion,
		Sums: *s,
	}
	if s.RTTConns > 0 {
		k := float64(s.RTTConns)
		t.RTT, t.RTTVar, t.MinRTT = float64(s.RTT)/k, float64(s.RTTVar)/k, float64(s.MinRTT)/k
	}
	if s.SsthreshConns > 0 {
		t.Ssthresh = float64(s.Ssthresh) / float64(s.SsthreshConns)
	}
	if span := float64(s.SpanNs) / 1e3; span > 0 {
		t.BusyFraction = math.Min(1, float64(s.BusyTime)/span)
		t.RwndLimitedFraction = math.Min(1, float64(s.RwndLimited)/span)
		t.SndbufLimitedFraction = math.Min(1, float64(s.SndbufLimited)/span)
	}
	for i, k := range s.CAStates {
		switch {
		case k == 0:
		case t.CAState == "":
			t.CAState = caStates[i]
		default:
			t.CAState = "mixed"
		}
	}
	return t
}

// MergeTCP is the figures of several TCPs together (nil ones skipped);
// nil when none has any.
func MergeTCP(ts ...*TCP) *TCP {
	var s TCPSums
	for _, t := range ts {
		if t != nil {
			s.Merge(&t.Sums)
		}
	}
	return TCPOf(&s)
}

// ZeroCopy is what MSG_ZEROCOPY did on the sending end (zerocopy=True).
type ZeroCopy struct {
	Sends     uint64 `json:"sends"`     // sends made with MSG_ZEROCOPY
	Completed uint64 `json:"completed"` // of those, sends the kernel reported done with (the error queue's completions)
	Copied    uint64 `json:"copied"`    // of those, sends the kernel copied after all (SO_EE_CODE_ZEROCOPY_COPIED), as on loopback
}

// Add adds o's counts.
func (z *ZeroCopy) Add(o ZeroCopy) {
	z.Sends, z.Completed, z.Copied = z.Sends+o.Sends, z.Completed+o.Completed, z.Copied+o.Copied
}

// aggregateTCP merges the results' TCP figures (both ends') and zerocopy
// counts into out, as Aggregate merges their counts.
func aggregateTCP(out *Result, rs []*Result) {
	var local, remote []*TCP
	var mp []*MPTCP
	var zc *ZeroCopy
	for _, r := range rs {
		local = append(local, r.TCP)
		mp = append(mp, r.MPTCP)
		if r.Remote != nil {
			remote = append(remote, r.Remote.TCP)
		}
		if z := r.ZeroCopy; z != nil {
			if zc == nil {
				zc = &ZeroCopy{}
			}
			zc.Add(*z)
		}
	}
	out.TCP, out.ZeroCopy, out.MPTCP = MergeTCP(local...), zc, MergeMPTCP(mp...)
	if out.Remote != nil {
		out.Remote.TCP = MergeTCP(remote...)
	}
}
