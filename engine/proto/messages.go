package proto

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
}

// Ready answers Setup: where the data endpoint is and what was granted.
type Ready struct {
	DataPort int        `json:"data_port"`
	Buffers  Buffers    `json:"buffers"`
	Server   ServerInfo `json:"server"`
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
}

// Error ends a session with a reason a user can read.
type Error struct {
	Message string `json:"message"`
}

// RemoteError is an Error message received from the peer.
type RemoteError struct{ Message string }

func (e *RemoteError) Error() string { return "server: " + e.Message }
