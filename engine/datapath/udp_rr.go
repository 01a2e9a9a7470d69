package datapath

import "netscript/engine/workload"

// udpRR runs UDP_RR: a request datagram and its response on one connected
// socket per flow.
var udpRR = &Loops{
	Client: func(f *ClientFlow) (workload.ClientLoop, error) {
		s := f.Spec
		l := &workload.UDPRR{Loop: f.Loop, FD: f.FD, Request: s.Request, Response: s.Response, Burst: s.Burst, Timeout: s.Timeout}
		return l, l.Prepare()
	},
	Server: func(p *ServerParams) workload.ServerLoop {
		return &workload.UDPRRServer{FD: p.FD, Response: p.Response, Allowed: p.Allowed, Stop: p.Stop, EndOnEmpty: p.EndOnEmpty, Standing: p.Standing}
	},
}
