package spec

import (
	"netscript/engine/mux"
	"netscript/engine/workload"
)

// TCPRR is netperf's TCP_RR: a request and its response on one long-lived
// connection per flow, with burst more requests kept in flight.
var TCPRR = &Workload{
	Name: "tcp_rr", Netperf: "TCP_RR", Code: 1,
	Unit:      "a request and its response on one long-lived connection",
	Short:     "request/response on one connection",
	Messages:  true,
	HalfClose: true,
	Takes:     []string{OptTransactions, OptRequest, OptResponse, OptBurst, OptNoDelay},
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
	MuxServer:  mux.Serve,
	TakesKnobs: []string{OptCongestion, OptNotsentLowat, OptMSS, OptQuickAck},
}
