package datapath

import (
	"errors"

	"golang.org/x/sys/unix"

	"netscript/engine/mux"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// The bulk-data workloads' loops.
var (
	// tcpStream runs TCP_STREAM: bulk data, client to server.
	tcpStream = &Loops{
		Client: func(f *ClientFlow) (workload.ClientLoop, error) {
			l := &workload.Stream{Loop: f.Loop, FD: f.FD, SendSize: f.SendSize, Bytes: f.Spec.Bytes, Drain: spec.StreamDrain}
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
		MuxServer: mux.ServeStream,
	}

	// tcpMaerts runs TCP_MAERTS: bulk data, server to client.
	tcpMaerts = &Loops{
		Client: func(f *ClientFlow) (workload.ClientLoop, error) {
			l := &workload.Maerts{Loop: f.Loop, FD: f.FD, RecvSize: f.RecvSize, Bytes: f.Spec.Bytes}
			l.Prepare()
			return l, nil
		},
		Server: func(p *ServerParams) workload.ServerLoop {
			return &workload.MaertsSource{FD: p.FD, SendSize: p.SendSize, Bytes: p.Bytes, Pace: workload.NewPacer(p.Rate), Stop: p.Stop,
				ZeroCopy: p.ZeroCopy}
		},
		MuxServer: mux.ServeMaerts,
	}

	// udpStream runs UDP_STREAM: datagrams client to server.
	udpStream = &Loops{
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
	}
)

// zeroCopyOf turns MSG_ZEROCOPY on for a flow's socket when zerocopy=True.
func zeroCopyOf(f *ClientFlow) (*sock.ZeroCopy, error) {
	if !f.Spec.Knobs.ZeroCopy {
		return nil, nil
	}
	z, err := sock.NewZeroCopy(f.FD)
	if err != nil {
		en, _ := errors.Unwrap(err).(unix.Errno)
		return nil, &sock.KnobError{Option: spec.OptZeroCopy, End: "client", Err: en}
	}
	return z, nil
}
