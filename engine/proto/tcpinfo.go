package proto

// The kernel's figures of TCP connections (TCP_INFO) and the socket knobs
// are an optional extension of version 3 (doc.go): a client that wants
// the server's TCP_INFO sets Setup.TCPInfo, and one whose test sets knobs
// sends Setup.Knobs; a server that accepts such a Setup answers with
// Results.TCP and ConnCounts.TCP. A server of the release before refuses
// tcp_info by name, and the client runs the test again without it; a v3
// client never asks, so a new server never sends the new fields.

// TCPSums is TCP_INFO accumulated over connections (result.TCPSums field
// for field): counts, and sums of figures over the connections so the two
// ends' figures merge exactly. Times are µs, rates bytes/s.
type TCPSums struct {
	Conns         uint64    `json:"conns"`
	Retrans       uint64    `json:"retrans"`       // segments retransmitted over the interval
	BytesRetrans  uint64    `json:"bytes_retrans"` // bytes retransmitted over the interval
	RTTConns      uint64    `json:"rtt_conns"`     // connections with an RTT sample
	RTT           uint64    `json:"rtt"`           // sum over rtt_conns
	RTTMax        uint32    `json:"rtt_max"`
	RTTVar        uint64    `json:"rttvar"`
	MinRTT        uint64    `json:"min_rtt"`
	Cwnd          uint64    `json:"cwnd"`
	CwndMax       uint32    `json:"cwnd_max"`
	SsthreshConns uint64    `json:"ssthresh_conns"`
	Ssthresh      uint64    `json:"ssthresh"`
	MSS           uint64    `json:"mss"`
	PacingRate    uint64    `json:"pacing_rate"`
	DeliveryRate  uint64    `json:"delivery_rate"`
	BusyTime      uint64    `json:"busy_time"`
	RwndLimited   uint64    `json:"rwnd_limited"`
	SndbufLimited uint64    `json:"sndbuf_limited"`
	SpanNs        uint64    `json:"span_ns"` // the time the busy figures are a fraction of
	Reordering    uint64    `json:"reordering"`
	Lost          uint64    `json:"lost"`
	Unacked       uint64    `json:"unacked"`
	CAStates      [5]uint64 `json:"ca_states"`  // connections by tcpi_ca_state: open, disorder, cwr, recovery, loss
	Congestion    string    `json:"congestion"` // the algorithm, or "mixed"
}

// Knobs are the socket options a test sets on the server's data sockets
// (spec's knobs); absent fields are left alone.
type Knobs struct {
	Congestion    string `json:"congestion,omitempty"`      // TCP_CONGESTION
	MaxPacingRate uint64 `json:"max_pacing_rate,omitempty"` // bits/s, on the sending end
	TOS           *int   `json:"tos,omitempty"`             // IP_TOS / IPV6_TCLASS, 0-255
	NotsentLowat  int    `json:"notsent_lowat,omitempty"`   // TCP_NOTSENT_LOWAT, bytes
	MSS           int    `json:"mss,omitempty"`             // TCP_MAXSEG on the listener
	BusyPoll      int    `json:"busy_poll,omitempty"`       // SO_BUSY_POLL, µs
	Cork          bool   `json:"cork,omitempty"`            // TCP_CORK
	QuickAck      bool   `json:"quickack,omitempty"`        // TCP_QUICKACK, re-armed after each receive
	TCPInfo       bool   `json:"tcp_info,omitempty"`        // tcp_crr: TCP_INFO of every connection
	ZeroCopy      bool   `json:"zerocopy,omitempty"`        // MSG_ZEROCOPY sends on the sending end
}

// ZeroCopy is what MSG_ZEROCOPY did on the server's sends (TCP_MAERTS).
type ZeroCopy struct {
	Sends     uint64 `json:"sends"`
	Completed uint64 `json:"completed"` // completions read from the error queue
	Copied    uint64 `json:"copied"`    // of those, copied after all (SO_EE_CODE_ZEROCOPY_COPIED)
}
