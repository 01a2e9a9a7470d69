package proto

import "netscript/engine/sysinfo"

import "encoding/json"

// Setup asks the server to prepare the server side of one test.
type Setup struct {
	Test         string `json:"test"`                   // "TCP_RR", "TCP_CRR", "UDP_RR", ...
	Request      int    `json:"request,omitempty"`      // request size in bytes (RR tests)
	Response     int    `json:"response,omitempty"`     // response size in bytes (RR tests)
	Burst        int    `json:"burst,omitempty"`        // requests in flight beyond the first
	NoDelay      bool   `json:"nodelay,omitempty"`      // TCP_NODELAY on the server's data socket
	DataPort     int    `json:"data_port,omitempty"`    // the data port to listen on; 0 lets the server choose
	SendBuffer   int    `json:"send_buffer,omitempty"`  // SO_SNDBUF for the server's data socket
	RecvBuffer   int    `json:"recv_buffer,omitempty"`  // SO_RCVBUF for the server's data socket
	DurationNs   int64  `json:"duration_ns,omitempty"`  // the test's length, for the server's backstop
	Transactions uint64 `json:"transactions,omitempty"` // the test's count limit, if any
	Brand        string `json:"brand,omitempty"`        // the client's tag, for the server's log

	SendSize int     `json:"send_size,omitempty"` // bytes per send of the server's sends (TCP_MAERTS); 0: default
	RecvSize int     `json:"recv_size,omitempty"` // bytes per receive on the server (TCP_STREAM, UDP_STREAM); 0: default
	Bytes    uint64  `json:"bytes,omitempty"`     // TCP_MAERTS: the server sends exactly this many bytes
	Rate     float64 `json:"rate,omitempty"`      // TCP_MAERTS: the server's sends per second; 0: unpaced
	FastOpen bool    `json:"fastopen,omitempty"`  // TCP_CRR: TCP_FASTOPEN on the listener
	CPUUtil  bool    `json:"cpu_util,omitempty"`  // measure the server's CPU between Start and Stop
	CPU      *int    `json:"cpu,omitempty"`       // bind the server's data-path thread to this CPU

	// Flows is how many connections (UDP: flows) the test opens; 0 or 1
	// is one. TCP tests accept that many connections on their endpoint(s).
	Flows int `json:"flows,omitempty"`
	// DataPorts, if set, is each flow's data port (one per flow, each
	// 1-65535): the server opens one endpoint per distinct port, each
	// serving the flows sent to it, and DataPort is unused.
	DataPorts []int `json:"data_ports,omitempty"`
	// Sources are the source addresses the client's data will come from
	// besides its control connection's (the `local` addresses). The server
	// takes TCP_CRR connections only from these and the control
	// connection's; TCP data connections prove themselves with a tag
	// instead (auth.ConnHello), and UDP flows by their greeting
	// (auth.Greeting).
	Sources []string `json:"sources,omitempty"`
	// HeartbeatNs, if set, asks the server for a Heartbeat every this
	// many nanoseconds during the measured interval (from Started until
	// Stop), and tells it the client sends its own as often: each side
	// then ends the test when the other falls silent (live.go). A server
	// of a release before heartbeats refuses the field by name (strict
	// decoding); the client then runs the test without them. Absent: no
	// heartbeats, the conversation of before.
	HeartbeatNs int64 `json:"heartbeat_ns,omitempty"`
	// TCPInfo asks for the server's TCP_INFO of its data connections in
	// Results (tcpinfo.go); Knobs are socket options for its data sockets.
	TCPInfo bool   `json:"tcp_info,omitempty"`
	Knobs   *Knobs `json:"knobs,omitempty"`
}

// Buffers are socket buffer sizes the kernel granted.
type Buffers struct {
	Send int `json:"send"`
	Recv int `json:"recv"`
}

// ServerInfo describes the server to the client.
type ServerInfo struct {
	Version string `json:"version"` // netscript release
	Kernel  string `json:"kernel,omitempty"`
	// Env is the server's env(): kernel, CPUs and the sysctls that move
	// results, so a record of a run holds both machines'.
	Env *sysinfo.Info `json:"env,omitempty"`
}

// Ready answers Setup: where the data endpoint is and what was granted.
type Ready struct {
	DataPort int        `json:"data_port"`
	Buffers  Buffers    `json:"buffers"`
	Server   ServerInfo `json:"server"`
	SendSize int        `json:"send_size,omitempty"` // the send size the server uses (TCP_MAERTS)
	RecvSize int        `json:"recv_size,omitempty"` // the receive size the server uses (streams)
	// TCPFastOpen is the server's net.ipv4.tcp_fastopen (its network
	// namespace's), or -1 if it could not be read. Bit 2 lets the server
	// accept data in a SYN.
	TCPFastOpen int `json:"tcp_fastopen"`
}

// Start begins the measured interval.
type Start struct{}

// Started confirms that the server has taken its start snapshot.
type Started struct{}

// Stop ends the measured interval.
type Stop struct{}

// Peer is one distinct client address the server saw and how many
// connections or datagrams came from it.
type Peer struct {
	Addr  string `json:"addr"`
	Count uint64 `json:"count"`
}

// Results are the server's counts for the test.
type Results struct {
	Transactions  uint64            `json:"transactions"`
	BytesSent     uint64            `json:"bytes_sent"`
	BytesReceived uint64            `json:"bytes_received"`
	Accepts       uint64            `json:"accepts"`
	ElapsedNs     int64             `json:"elapsed_ns"`
	Errors        map[string]uint64 `json:"errors,omitempty"`
	Peers         []Peer            `json:"peers,omitempty"`
	PeersMore     bool              `json:"peers_more,omitempty"` // more distinct peers than listed

	SendCalls uint64 `json:"send_calls,omitempty"` // send calls that moved data
	RecvCalls uint64 `json:"recv_calls,omitempty"` // receive calls that returned data (UDP_STREAM: datagrams)
	// FastOpenAccepted counts accepted connections whose SYN carried data
	// the server took (TCP_INFO's SYN-data flag on the accepted socket).
	FastOpenAccepted uint64     `json:"fastopen_accepted,omitempty"`
	CPU              *CPUReport `json:"cpu,omitempty"`      // with Setup.CPUUtil
	Affinity         []int      `json:"affinity,omitempty"` // the CPUs the data-path thread could run on
	// Conns are the counts of each accepted connection of a TCP_RR or
	// stream test, so the client can match them to its flows.
	Conns []ConnCounts `json:"conns,omitempty"`
	// TCP is TCP_INFO over every data connection, with Setup.TCPInfo.
	TCP *TCPSums `json:"tcp,omitempty"`
	// ZeroCopy is the server's MSG_ZEROCOPY counts, with Knobs.ZeroCopy.
	ZeroCopy *ZeroCopy `json:"zerocopy,omitempty"`
}

// ConnCounts is what the server counted on one connection.
type ConnCounts struct {
	Peer          string   `json:"peer"` // the client's address and port
	Transactions  uint64   `json:"transactions,omitempty"`
	BytesSent     uint64   `json:"bytes_sent,omitempty"`
	BytesReceived uint64   `json:"bytes_received,omitempty"`
	SendCalls     uint64   `json:"send_calls,omitempty"`
	RecvCalls     uint64   `json:"recv_calls,omitempty"`
	TCP           *TCPSums `json:"tcp,omitempty"` // with Setup.TCPInfo
}

// CPUReport is what the server's side of a test cost in CPU between Start
// and Stop.
type CPUReport struct {
	Util      float64 `json:"util"`       // system-wide utilisation, percent of the machine (/proc/stat)
	NumCPU    int     `json:"ncpu"`       // CPUs the utilisation is averaged over
	ThreadNs  int64   `json:"thread_ns"`  // CPU time of the test's data-path thread
	ElapsedNs int64   `json:"elapsed_ns"` // the interval measured
}

// Error ends a session with a reason a user can read.
type Error struct {
	Message string `json:"message"`
}

// RemoteError is an Error message received from the peer.
type RemoteError struct{ Message string }

func (e *RemoteError) Error() string { return "server: " + e.Message }

// The messages of a test whose client side runs on a daemon (client=): a
// script sends RunClient to daemon A; A sets the test up toward server B,
// answers ClientReady, echoes each Sync (so the script learns the round
// trip to A), starts the measured interval DelayNs after Go arrives, and
// sends ClientResult. Stop from the script during the test ends it early.
const (
	TypeRunClient    Type = 8
	TypeClientReady  Type = 9
	TypeSync         Type = 10
	TypeGo           Type = 11
	TypeClientResult Type = 12
)

// RunClient asks a daemon to run the client side of a test.
type RunClient struct {
	// Test is the test, whose Host is the server as the daemon reaches it.
	Test TestSpec `json:"spec"`
}

// ClientReady says the daemon's client side is set up (data connections
// open, threads parked) and waits for Go.
type ClientReady struct{}

// Sync is answered with the same Sync at once.
type Sync struct {
	Seq int `json:"seq"`
}

// Go starts the measured interval DelayNs after the daemon receives it.
type Go struct {
	DelayNs int64 `json:"delay_ns"`
}

// ClientResult is the outcome of a test run by a daemon's client side.
type ClientResult struct {
	Result    json.RawMessage `json:"result"`               // a result.Result
	Hist      []byte          `json:"hist,omitempty"`       // the merged latency histogram (hist's binary form)
	FlowHists [][]byte        `json:"flow_hists,omitempty"` // each flow's histogram
	// Error, if set, says why the test was cut short after it started;
	// Result is what it measured until then.
	Error string `json:"error,omitempty"`
}
