package datapath

import (
	"netscript/engine/mux"
	"netscript/engine/workload"
)

// tcpRR runs TCP_RR: a request and its response on one connection per
// flow, burst more in flight.
var tcpRR = &Loops{
	Client: func(f *ClientFlow) (workload.ClientLoop, error) {
		l := &workload.RR{Loop: f.Loop, FD: f.FD, Request: f.Spec.Request, Response: f.Spec.Response, Burst: f.Spec.Burst,
			QuickAck: f.Spec.Knobs.QuickAck}
		l.Prepare()
		return l, nil
	},
	Mux: mux.PrepareRR,
	Server: func(p *ServerParams) workload.ServerLoop {
		return &workload.RRServer{FD: p.FD, Request: p.Request, Response: p.Response, Burst: p.Burst, Stop: p.Stop, QuickAck: p.QuickAck}
	},
	MuxServer: mux.Serve,
}
