package spec

import (
	"time"

	"netscript/engine/mux"
	"netscript/engine/sock"
	"netscript/engine/workload"
)

// The bulk-data workloads.
var (
	// TCPStream is netperf's TCP_STREAM: bulk data, client to server.
	TCPStream = &Workload{
		Name: "tcp_stream", Netperf: "TCP_STREAM", Code: 4,
		Unit:  "bulk data, client to server",
		Short: "bulk data, client to server",
		Bulk:  true,
		Takes: []string{OptNoDelay, OptSendSize, OptRecvSize, OptBytes},
		Client: func(f *ClientFlow) (workload.ClientLoop, error) {
			l := &workload.Stream{Loop: f.Loop, FD: f.FD, SendSize: f.SendSize, Bytes: f.Spec.Bytes, Drain: StreamDrain}
			var err error
			if l.ZeroCopy, err = zeroCopyOf(f); err != nil {
				return nil, err
			}
			l.Prepare()
			return l, nil
		},
		Server: func(p *ServerParams) workload.ServerLoop {
			return &workload.StreamSink{FD: p.FD, RecvSize: p.RecvSize, Stop: p.Stop}
		},
		MuxServer:  mux.ServeStream,
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
		Client: func(f *ClientFlow) (workload.ClientLoop, error) {
			l := &workload.Maerts{Loop: f.Loop, FD: f.FD, RecvSize: f.RecvSize, Bytes: f.Spec.Bytes}
			l.Prepare()
			return l, nil
		},
		Server: func(p *ServerParams) workload.ServerLoop {
			return &workload.MaertsSource{FD: p.FD, SendSize: p.SendSize, Bytes: p.Bytes, Pace: workload.NewPacer(p.Rate), Stop: p.Stop,
				ZeroCopy: p.ZeroCopy}
		},
		MuxServer:  mux.ServeMaerts,
		TakesKnobs: []string{OptCongestion, OptNotsentLowat, OptMSS, OptCork, OptZeroCopy},
	}

	// UDPStream is netperf's UDP_STREAM: datagrams client to server, with
	// what was sent, received and lost counted at both ends.
	UDPStream = &Workload{
		Name: "udp_stream", Netperf: "UDP_STREAM", Code: 6,
		Unit:     "datagrams client to server, with loss counted at both ends",
		Short:    "datagrams client to server, loss counted",
		Datagram: true,
		Bulk:     true,
		Takes:    []string{OptSendSize, OptRecvSize, OptBytes},
		Client: func(f *ClientFlow) (workload.ClientLoop, error) {
			// IP_RECVERR: a datagram the local stack drops fails its send
			// with ENOBUFS (netperf's enable_enobufs).
			if err := sock.RecvErr(f.FD, f.Family); err != nil {
				return nil, err
			}
			l := &workload.UDPStream{Loop: f.Loop, FD: f.FD, SendSize: f.SendSize, Bytes: f.Spec.Bytes}
			var err error
			if l.ZeroCopy, err = zeroCopyOf(f); err != nil {
				return nil, err
			}
			l.Prepare()
			return l, nil
		},
		Server: func(p *ServerParams) workload.ServerLoop {
			return &workload.UDPSink{FD: p.FD, RecvSize: p.RecvSize, Standing: p.Standing, Allowed: p.Allowed, Stop: p.Stop}
		},
		TakesKnobs: []string{OptZeroCopy},
	}
)

// StreamDrain bounds how long TCP_STREAM waits, after its last send, for
// the server to read what is in flight and close.
const StreamDrain = 10 * time.Second
