package spec

import "netscript/engine/workload"

// UDPRR is netperf's UDP_RR: a request datagram and its response datagram
// on one connected socket per flow, burst more in flight; a response that
// does not come within the timeout counts the transaction as lost.
var UDPRR = &Workload{
	Name: "udp_rr", Netperf: "UDP_RR", Code: 3,
	Unit:     "a request datagram and its response datagram",
	Short:    "request/response datagrams",
	Datagram: true,
	Messages: true,
	Takes:    []string{OptTransactions, OptRequest, OptResponse, OptBurst, OptTimeout},
	Client: func(f *ClientFlow) (workload.ClientLoop, error) {
		s := f.Spec
		l := &workload.UDPRR{Loop: f.Loop, FD: f.FD, Request: s.Request, Response: s.Response, Burst: s.Burst, Timeout: s.Timeout}
		return l, l.Prepare()
	},
	Server: func(p *ServerParams) workload.ServerLoop {
		return &workload.UDPRRServer{FD: p.FD, Response: p.Response, Allowed: p.Allowed, Stop: p.Stop, EndOnEmpty: p.EndOnEmpty, Standing: p.Standing}
	},
}
