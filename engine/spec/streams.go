package spec

import "time"

// The bulk-data workloads.
var (
	// TCPStream is netperf's TCP_STREAM: bulk data, client to server.
	TCPStream = &Workload{
		Name: "tcp_stream", Netperf: "TCP_STREAM", Code: 4,
		Unit:       "bulk data, client to server",
		Short:      "bulk data, client to server",
		Bulk:       true,
		Takes:      []string{OptNoDelay, OptSendSize, OptRecvSize, OptBytes},
		MuxServer:  true,
		TakesKnobs: []string{OptCongestion, OptNotsentLowat, OptMSS, OptCork, OptZeroCopy},
	}

	// TCPMaerts is netperf's TCP_MAERTS: bulk data, server to client.
	TCPMaerts = &Workload{
		Name: "tcp_maerts", Netperf: "TCP_MAERTS", Code: 5,
		Unit:        "bulk data, server to client",
		Short:       "bulk data, server to client",
		Bulk:        true,
		ServerSends: true,
		Takes:       []string{OptNoDelay, OptSendSize, OptRecvSize, OptBytes},
		MuxServer:   true,
		TakesKnobs:  []string{OptCongestion, OptNotsentLowat, OptMSS, OptCork, OptZeroCopy},
	}

	// UDPStream is netperf's UDP_STREAM: datagrams client to server, with
	// what was sent, received and lost counted at both ends.
	UDPStream = &Workload{
		Name: "udp_stream", Netperf: "UDP_STREAM", Code: 6,
		Unit:       "datagrams client to server, with loss counted at both ends",
		Short:      "datagrams client to server, loss counted",
		Datagram:   true,
		Bulk:       true,
		Takes:      []string{OptSendSize, OptRecvSize, OptBytes},
		TakesKnobs: []string{OptZeroCopy},
	}
)

// StreamDrain bounds how long TCP_STREAM waits, after its last send, for
// the server to read what is in flight and close.
const StreamDrain = 10 * time.Second
