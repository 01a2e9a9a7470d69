package datapath

import (
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// tcpBidir runs a test both ways on one connection per flow: on the
// client TCP_STREAM's sender and TCP_MAERTS's receiver on the flow's
// socket, each on a thread of its own (workload.Bidir); on the server a
// sink and a source on the connection. With a connection per direction
// the client runs the workloads of its Pair instead, and these loops do
// not run.
var tcpBidir = &Loops{
	Client: func(f *ClientFlow) (workload.ClientLoop, error) {
		s := f.Spec
		tx := &workload.Stream{Loop: f.Loop, FD: f.FD, SendSize: f.SendSize, Bytes: s.Bytes, Drain: spec.StreamDrain}
		rx := &workload.Maerts{Loop: f.Loop, FD: f.FD, RecvSize: f.RecvSize, Bytes: s.Bytes, Drain: spec.StreamDrain}
		// Each direction counts, paces and samples on its own.
		rx.Hist, rx.Pace = nil, nil
		if f.Loop.Interim != nil {
			rx.Interim = workload.NewInterim(s.Interval, s.Duration)
		}
		tx.Prepare()
		rx.Prepare()
		return workload.NewBidir(tx, rx), nil
	},
	Server: func(p *ServerParams) workload.ServerLoop {
		b := workload.NewBidirServer(p.FD, p.RecvSize, p.SendSize, p.Bytes, workload.NewPacer(p.Rate), p.Stop, p.ZeroCopy)
		b.CPU = p.CPU
		return b
	},
}
