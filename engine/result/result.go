// Package result holds what a test measured, in the shape scripts and
// records see it. Field names (the json tags) are the names Starlark
// scripts use, so they are part of netscript's contract.
package result

import (
	"netscript/engine/hist"
	"netscript/engine/sysinfo"
	"slices"
)

// Units of throughput, spelled as netperf spells them.
const (
	UnitsTrans = "Trans/s"
	UnitsBits  = "10^6bits/s"
)

// Result is one test's outcome.
type Result struct {
	Test          string            `json:"test"`
	Brand         string            `json:"brand"`
	Throughput    float64           `json:"throughput"`
	Units         string            `json:"units"`
	Elapsed       float64           `json:"elapsed"` // seconds measured
	Transactions  uint64            `json:"transactions"`
	Discarded     uint64            `json:"discarded"` // in flight at the deadline: sent, not counted
	BytesSent     uint64            `json:"bytes_sent"`
	BytesReceived uint64            `json:"bytes_received"`
	Latency       *Latency          `json:"latency"` // RR tests; nil for streams
	Errors        map[string]uint64 `json:"errors"`
	Config        Config            `json:"config"`
	LocalAddress  string            `json:"local_address"`
	RemoteAddress string            `json:"remote_address"`
	Remote        *Remote           `json:"remote"` // the server's own counts; nil without a control connection

	SendCalls uint64 `json:"send_calls"` // streams: send calls that moved data (netperf's LOCAL_SEND_CALLS)
	RecvCalls uint64 `json:"recv_calls"` // streams: receive calls that returned data
	Drained   uint64 `json:"drained"`    // TCP_MAERTS: bytes that arrived after the measured interval, not counted

	UDP      *UDP      `json:"udp"`      // UDP_STREAM's datagram counts at both ends; nil for other tests
	FastOpen *FastOpen `json:"fastopen"` // with fastopen=True: what TCP Fast Open really did; else nil
	Interim  []Sample  `json:"interim"`  // with interval: throughput over each interval, in order

	// CPU figures, with cpu_util=True (None otherwise; the remote ones are
	// None without a control connection). local_cpu and remote_cpu are
	// netperf's: system-wide utilisation from /proc/stat over the measured
	// interval, in percent of the whole machine, so they charge this test
	// with everything else the machine did. local_sd and remote_sd are
	// netperf's service demand from them: CPU microseconds per transaction
	// (RR tests) or per KB, K = 1024 (streams), over the local work count.
	// local_proc_cpu and remote_proc_cpu count only the CPU time of the
	// threads that ran this test's data path on each end, in percent of the
	// whole machine (so they compare with local_cpu); local_proc_sd and
	// remote_proc_sd are the service demand from that time, which stays
	// right when other tests run at the same time.
	LocalCPU       *float64 `json:"local_cpu"`
	RemoteCPU      *float64 `json:"remote_cpu"`
	LocalSD        *float64 `json:"local_sd"`
	RemoteSD       *float64 `json:"remote_sd"`
	LocalProcCPU   *float64 `json:"local_proc_cpu"`
	RemoteProcCPU  *float64 `json:"remote_proc_cpu"`
	LocalProcSD    *float64 `json:"local_proc_sd"`
	RemoteProcSD   *float64 `json:"remote_proc_sd"`
	LocalCPUCount  *int     `json:"local_cpu_count"`  // CPUs local_cpu is averaged over
	RemoteCPUCount *int     `json:"remote_cpu_count"` // CPUs remote_cpu is averaged over
	SDUnits        string   `json:"sd_units"`         // "usec/Tran" or "usec/KB"; "" without cpu_util

	// Notes explain, in plain words, anything that changes how the figures
	// must be read (no control connection, Fast Open that could not work).
	Notes []string `json:"notes"`

	// Error is why the test failed, for a test whose failure was kept as
	// its result (keep_going=True, --keep-going); "" for a test that
	// ended well. A failed result's figures are what it measured before
	// the failure (often nothing) and are never a measurement of the
	// test; see Failed.
	Error string `json:"error,omitempty"`

	// Flows holds each flow's own figures, in order (one entry for a test
	// of one flow); the fields above are their aggregate: summed counts
	// and throughput, latency from the merged histograms.
	Flows []*Flow `json:"flows"`
	// StartSkew is the spread, in seconds, between the first and the last
	// flow's start: the instant each began its first transaction (streams:
	// its first send or receive), measured from the common start; 0 for one
	// flow. It is what the common start controls.
	StartSkew *float64 `json:"start_skew"`
	// FirstSkew is the spread of the flows' first completed transactions:
	// the start skew plus how the server and the machine serialised the
	// flows' first answers; None if no flow completed one.
	FirstSkew *float64 `json:"first_skew"`
	// Start is when the measured interval began, in seconds since the Unix
	// epoch on the clock of the machine that ran the client side: tests
	// started together (flows, parallel(), client= in parallel) share it.
	Start float64 `json:"start"`

	// ServerEnv is the server's env() as it sent it at set-up; not a
	// script-visible field (records keep it beside the result).
	ServerEnv *sysinfo.Info `json:"-"`

	// Hist is the full latency histogram behind Latency, kept so results
	// can be merged exactly; it is not a script-visible field.
	Hist *hist.Histogram `json:"-"`

	// Censored is how old the transactions discarded at the end were (RR
	// tests; nil for streams); see Censored.
	Censored *Censored `json:"censored"`
	// TCP is the kernel's view of the client's TCP connections over the
	// measured interval (TCP_INFO, tcp.go); None for UDP, and for tcp_crr
	// without tcp_info=True.
	TCP *TCP `json:"tcp"`
	// ZeroCopy is what MSG_ZEROCOPY did, summed over the flows, with
	// zerocopy=True; else None.
	ZeroCopy *ZeroCopy `json:"zerocopy"`
	// Schedule is how an open-model test (arrival_rate, arrival_ramp)
	// kept to its schedule, summed over the flows; None for the closed
	// model.
	Schedule *Schedule `json:"schedule"`

	// MPTCP is what the client's kernel made of the test's connections
	// with protocol="mptcp": their subflows and each subflow's TCP_INFO
	// (mptcp.go); None otherwise, and for a connection per transaction.
	MPTCP *MPTCP `json:"mptcp"`

	// Tx and Rx are a test both ways (tcp_bidir) taken apart: the data
	// the client sent, as tcp_stream reports it, and the data it
	// received, as tcp_maerts does (bidir.go); the fields above are their
	// sum. None for other tests.
	Tx *Result `json:"tx"`
	Rx *Result `json:"rx"`
}

// Failed reports whether r is the result of a test that failed and was
// kept going past (its Error says why).
func (r *Result) Failed() bool { return r != nil && r.Error != "" }

// Latency is the distribution of transaction times, in microseconds.
type Latency struct {
	Count  uint64  `json:"count"`
	Min    float64 `json:"min"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	Max    float64 `json:"max"`
}

// LatencyOf summarises a histogram.
func LatencyOf(h *hist.Histogram) *Latency {
	s := h.Summary()
	return &Latency{Count: s.Count, Min: s.Min, Mean: s.Mean, Stddev: s.Stddev,
		P50: s.P50, P90: s.P90, P99: s.P99, P999: s.P999, Max: s.Max}
}

// Config is the options in force for the test, including what the kernel
// actually granted.
type Config struct {
	Host             string  `json:"host"` // "" for the embedded server
	Port             int     `json:"port"`
	DataPort         int     `json:"data_port"`
	Family           string  `json:"family"`
	Duration         float64 `json:"duration"` // seconds asked for; 0 with a count
	Transactions     uint64  `json:"transactions"`
	Request          int     `json:"request"`
	Response         int     `json:"response"`
	Burst            int     `json:"burst"`
	NoDelay          bool    `json:"nodelay"`
	Local            string  `json:"local"`
	LocalPort        int     `json:"local_port"`
	Timeout          float64 `json:"timeout"` // UDP_RR loss timeout, seconds
	LocalSendBuffer  int     `json:"local_send_buffer"`
	LocalRecvBuffer  int     `json:"local_recv_buffer"`
	RemoteSendBuffer int     `json:"remote_send_buffer"`
	RemoteRecvBuffer int     `json:"remote_recv_buffer"`
	ServerVersion    string  `json:"server_version"`

	SendSize int     `json:"send_size"` // streams: bytes per send, on whichever end sends
	RecvSize int     `json:"recv_size"` // streams: bytes per receive, on whichever end receives
	Bytes    uint64  `json:"bytes"`     // streams: the byte count asked for; 0 when timed
	Rate     float64 `json:"rate"`      // transactions or sends per second asked for; 0: unpaced
	// The open model's arrival schedule: the requests per second over all
	// the flows (or the ramp's start), "constant" or "poisson" ("" for the
	// closed model), and the ramp's stages as [rate, seconds].
	ArrivalRate float64      `json:"arrival_rate"`
	Arrival     string       `json:"arrival"`
	ArrivalRamp [][2]float64 `json:"arrival_ramp"`
	Interval    float64      `json:"interval"` // seconds between interim samples; 0: none
	FastOpen    bool         `json:"fastopen"`
	CPUUtil     bool         `json:"cpu_util"`
	Control     bool         `json:"control"` // False: no control connection (netperf -N)
	CPU         *int         `json:"cpu"`     // the CPU the client's data-path thread was bound to
	RemoteCPU   *int         `json:"remote_cpu"`
	// CPUAffinity and RemoteCPUAffinity are the CPUs the data-path threads
	// could run on, as the threads themselves read it during the test.
	CPUAffinity       []int `json:"cpu_affinity"`
	RemoteCPUAffinity []int `json:"remote_cpu_affinity"`
	// The socket buffer sizes asked for (0: the kernel's default); the
	// local_*_buffer and remote_*_buffer fields above are what the kernel
	// granted (Linux doubles a request, within net.core.[rw]mem_max).
	SendBufferRequest       int `json:"send_buffer_request"`
	RecvBufferRequest       int `json:"recv_buffer_request"`
	RemoteSendBufferRequest int `json:"remote_send_buffer_request"`
	RemoteRecvBufferRequest int `json:"remote_recv_buffer_request"`
	// The socket buffers at the end of the test (netperf's *_SIZE_END),
	// which autotuning may have grown past what was granted: this end's
	// read from the first flow's data socket once its loop ended, the far
	// end's as a netserver reports them; 0 when not known (a connection
	// per transaction, multiplexed flows, a netscript server).
	LocalSendBufferEnd  int `json:"local_send_buffer_end"`
	LocalRecvBufferEnd  int `json:"local_recv_buffer_end"`
	RemoteSendBufferEnd int `json:"remote_send_buffer_end"`
	RemoteRecvBufferEnd int `json:"remote_recv_buffer_end"`

	Flows       int    `json:"flows"`       // flows in the test (1: netperf's one connection)
	Multiplexed bool   `json:"multiplexed"` // the flows ran on a few epoll threads per end, not a thread each
	LocalPorts  []int  `json:"local_ports"` // tcp_crr's port walk: [lo, hi], or None
	Client      string `json:"client"`      // the daemon that ran the client side (client=), "" for this process

	// The socket knobs in force (knobs on both ends unless said): the
	// congestion control asked for ("" the kernel's), max_pacing_rate in
	// bits/s (0: none), tos (None: the kernel's), notsent_lowat, mss and
	// busy_poll (0: none), cork, quickack, and tcp_crr's tcp_info.
	Congestion    string `json:"congestion"`
	MaxPacingRate uint64 `json:"max_pacing_rate"`
	TOS           *int   `json:"tos"`
	NotsentLowat  int    `json:"notsent_lowat"`
	MSS           int    `json:"mss"`
	BusyPoll      int    `json:"busy_poll"`
	Cork          bool   `json:"cork"`
	QuickAck      bool   `json:"quickack"`
	TCPInfo       bool   `json:"tcp_info"`

	// Connections is tcp_bidir's connections per flow (1: both ways on
	// one, 2: one per direction; 0 for other tests); Protocol the TCP
	// tests' protocol ("tcp" or "mptcp"; "" for the others); File the file
	// tcp_sendfile sent ("" a temporary one, and for other tests).
	Connections int    `json:"connections"`
	Protocol    string `json:"protocol"`
	File        string `json:"file"`
}

// Sample is one interim result: the throughput over the interval that
// ended t seconds into the test.
type Sample struct {
	T          float64 `json:"t"`          // seconds from the start of the measured interval
	Throughput float64 `json:"throughput"` // in the result's units, over the interval ending at T
	Interval   float64 `json:"interval"`   // length of that interval in seconds
	// TCP tests: the segments the client retransmitted over the
	// interval and its congestion window at the end (segments), summed
	// over the flows; None for UDP and tcp_crr.
	Retransmits *uint64 `json:"retransmits"`
	Cwnd        *uint64 `json:"cwnd"`
	// TCP tests: the smoothed RTT (tcpi_rtt) at the end of the interval
	// in µs, the mean over the flows: the queue a loaded connection sits
	// behind, on the same timeline as its throughput; None for UDP,
	// tcp_crr and a reading without one.
	RTT *float64 `json:"rtt"`
	// TCP tests: the receiver's RTT estimate (tcpi_rcv_rtt, µs) at the
	// end of the interval, the mean over the flows: what the end that
	// only receives (tcp_maerts's client) knows of the queue its data
	// waits in, from the timestamps the data echoes; None without one.
	RcvRTT *float64 `json:"rcv_rtt"`
}

// UDP is UDP_STREAM's accounting at both ends, in datagrams.
type UDP struct {
	Sent     uint64   `json:"sent"`     // datagrams the client sent inside the measured interval
	Received *uint64  `json:"received"` // of those, datagrams the server counted; None without a control connection
	Lost     *int64   `json:"lost"`     // sent − received, exactly as the two ends counted
	LossPct  *float64 `json:"loss_pct"` // lost as a percentage of sent
	Refused  uint64   `json:"refused"`  // sends the client's own stack refused (ENOBUFS, ...): never sent, not in sent
}

// FastOpen is what TCP Fast Open really did in a TCP_CRR test, from each
// connection's TCP_INFO on the client (and the server's own count).
type FastOpen struct {
	Attempted      uint64  `json:"attempted"`       // connections opened with sendto(MSG_FASTOPEN)
	Accepted       uint64  `json:"accepted"`        // the server took the request in the SYN
	CookieRequests uint64  `json:"cookie_requests"` // no cookie cached: the SYN asked for one, the request followed the handshake
	Fallbacks      uint64  `json:"fallbacks"`       // the SYN carried the request but the server did not take it
	SynRetransmits uint64  `json:"syn_retransmits"` // the SYN with data had to be sent again
	Unknown        uint64  `json:"unknown"`         // TCP_INFO could not tell
	ServerAccepted *uint64 `json:"server_accepted"` // connections whose SYN data the server saw; None without control
	ServerSysctl   *int    `json:"server_sysctl"`   // the server's net.ipv4.tcp_fastopen; None if unknown
	ClientSysctl   *int    `json:"client_sysctl"`   // the client's net.ipv4.tcp_fastopen; None if unknown
	Note           string  `json:"note"`            // why Fast Open could not work, in plain words; "" if it could
}

// Remote is what the server counted on its side of the test.
type Remote struct {
	Transactions  uint64            `json:"transactions"`
	BytesSent     uint64            `json:"bytes_sent"`
	BytesReceived uint64            `json:"bytes_received"`
	Accepts       uint64            `json:"accepts"`
	Elapsed       float64           `json:"elapsed"`
	Errors        map[string]uint64 `json:"errors"`
	Peers         []string          `json:"peers"` // distinct client addresses seen
	SendCalls     uint64            `json:"send_calls"`
	RecvCalls     uint64            `json:"recv_calls"` // UDP_STREAM: datagrams received
	// Unreported names the fields above (by their json names) that the far
	// end does not report, such as a netserver's accepts, errors and
	// peers; scripts read them as None, not as a zero that was counted.
	Unreported []string `json:"unreported,omitempty"`

	// TCP is the kernel's view of the server's TCP connections
	// (TCP_INFO, tcp.go); None for UDP, for tcp_crr without tcp_info=True
	// and for a far end that does not report it (a netserver).
	TCP *TCP `json:"tcp"`
}

// Reported reports whether the far end reports the field of Remote whose
// json name is name.
func (r Remote) Reported(name string) bool {
	return !slices.Contains(r.Unreported, name)
}
