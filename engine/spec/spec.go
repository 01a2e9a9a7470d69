// Package spec describes a test before it runs: which workload, against
// which server, with which options. Validate checks a Spec the way a user
// needs it checked: every error names the option at fault.
package spec

import (
	"time"

	"netscript/engine/sock"
)

// DefaultControlPort is where `netscript serve` listens unless told
// otherwise (netperf's netserver uses 12865).
const DefaultControlPort = 12866

// DefaultDuration is a test's length when neither a duration nor a count is
// given, as in netperf.
const DefaultDuration = 10 * time.Second

// DefaultUDPTimeout is how long UDP_RR waits for a response before it counts
// the transaction as lost.
const DefaultUDPTimeout = time.Second

// DefaultConnectTimeout bounds connecting to a server at set-up.
const DefaultConnectTimeout = 5 * time.Second

// Spec is everything that defines one test.
type Spec struct {
	Workload       *Workload
	Host           string // the server's control address; "" means the embedded loopback server
	Port           int    // the server's control port
	Duration       time.Duration
	Transactions   uint64 // end after this many transactions instead (RR)
	Request        int    // request size in bytes (RR)
	Response       int    // response size in bytes (RR)
	Burst          int    // requests in flight beyond the first (TCP_RR, UDP_RR)
	NoDelay        bool   // TCP_NODELAY on both ends
	Local          string // source address to bind; "" lets the kernel choose
	LocalPort      int    // source port to bind; 0 lets the kernel choose
	DataPort       int    // the server's data port; 0 lets the server choose
	Family         sock.Family
	Brand          string        // a tag carried into the result
	Timeout        time.Duration // UDP_RR loss timeout
	ConnectTimeout time.Duration // bound on connecting at set-up

	// Streams.
	SendSize int    // bytes per send call; 0: netperf's default (see DefaultSendSize)
	RecvSize int    // bytes per receive call; 0: netperf's default (the receiving socket's buffer)
	Bytes    uint64 // end after this many bytes sent instead of after a duration

	FastOpen bool // TCP_CRR over TCP Fast Open (netperf -F)
	CPUUtil  bool // measure CPU utilisation and service demand on both ends (netperf -c -C)

	// Socket buffers to ask for (SO_SNDBUF, SO_RCVBUF); 0 keeps the
	// kernel's default and its autotuning.
	SendBuffer, RecvBuffer             int
	RemoteSendBuffer, RemoteRecvBuffer int

	// CPU and RemoteCPU bind the threads that do the work to one CPU on the
	// client and on the server; nil leaves them to the scheduler.
	CPU, RemoteCPU *int

	Interval time.Duration // period of interim samples; 0: none
	Rate     float64       // transactions (or sends) per second; 0: as fast as possible
	// Arrival, if given, is the open model's schedule of requests
	// (arrival.go); the zero value is the closed model.
	Arrival   Arrival
	NoControl bool // no control connection: talk straight to a standing data endpoint (netperf -N)

	// Flows is how many connections (UDP: flows) the test runs at once,
	// set up first, started at one instant and measured over the same
	// window; 1 is netperf's one connection. See flows.go.
	Flows int
	// Locals, LocalPorts and DataPorts give each flow its own source
	// address, source port or server data port (one value per flow); when
	// empty, every flow takes Local, LocalPort and DataPort.
	Locals     []string
	LocalPorts []int
	DataPorts  []int
	// LocalPortRange, if set, makes TCP_CRR walk its source ports as
	// netperf does: each flow starts at its own place in [lo, hi], binds
	// port+1 for every connection, wraps at hi, and skips a port that is
	// in use (EADDRINUSE, EADDRNOTAVAIL) to the next.
	LocalPortRange *PortRange

	// Client, if set, is the control address ("host" or "host:port") of a
	// `netscript serve` daemon that runs the client side of the test
	// toward Host on the script's behalf, and sends the result back.
	Client string

	// Server is what answers at Host:Port: ServerNetscript ("" too) or
	// ServerNetserver, an unmodified netserver spoken to in netperf's
	// control protocol (one control connection per flow).
	Server string

	// Liveness bounds how long the test runs on with no sign of life: no
	// progress on any data connection, or (with a control connection)
	// nothing from the server, whose heartbeats it asks for. 0 is
	// DefaultLiveness; LivenessOff turns both checks off. See
	// LivenessBound.
	Liveness time.Duration

	// Knobs are the socket options set on the data sockets of both ends
	// (congestion, max_pacing_rate, tos, ...) and tcp_crr's tcp_info; see
	// knobs.go.
	Knobs sock.Knobs

	// Connections is tcp_bidir's connections per flow: 1, one that both
	// ends send and receive on, or 2, one per direction; 0 is 1, or 2
	// against a netserver (BidirSplit).
	Connections int
	// File is what tcp_sendfile sends from; "": a temporary file of
	// SendfileBlocks sends the client makes and removes
	// (tcp_sendfile.go).
	File string
	// Protocol is the TCP workloads' transport: "" or ProtocolTCP, or
	// ProtocolMPTCP, IPPROTO_MPTCP on both ends (protocol.go).
	Protocol string
}

// MaxDatagram is the largest UDP payload netscript sends: 65535 bytes less
// the IPv4 and UDP headers.
const MaxDatagram = 65507

// DefaultSendSize is netperf's send size when none is given: the sending
// socket's granted send buffer, at most MaxDatagram for UDP (16384 bytes for
// TCP and 65507 for UDP with Linux's defaults).
func DefaultSendSize(w *Workload, sendBuffer int) int {
	n := sendBuffer
	if n <= 0 {
		n = 16384
	}
	if w.Datagram && n > MaxDatagram {
		n = MaxDatagram
	}
	if n > MaxMessage {
		n = MaxMessage
	}
	return n
}

// DefaultRecvSize is netperf's receive size when none is given: the
// receiving socket's granted receive buffer (bounded), or for UDP one whole
// datagram.
func DefaultRecvSize(w *Workload, recvBuffer int) int {
	if w.Datagram {
		return MaxDatagram
	}
	n := recvBuffer
	if n <= 0 {
		n = 131072
	}
	if n > MaxMessage {
		n = MaxMessage
	}
	return n
}

// Default returns the defaults of workload w, as netperf has them: one-byte
// requests and responses for the workloads whose transactions carry them,
// and the loss timeout for those that take one.
func Default(w *Workload) Spec {
	s := Spec{
		Workload:       w,
		Port:           DefaultControlPort,
		Duration:       DefaultDuration,
		ConnectTimeout: DefaultConnectTimeout,
		Flows:          1,
	}
	if w.Messages {
		s.Request, s.Response = 1, 1
	}
	if w.Accepts(OptTimeout) {
		s.Timeout = DefaultUDPTimeout
	}
	return s
}
