package datapath

import (
	"netscript/engine/mux"
	"netscript/engine/workload"
)

// connLoops run the workloads with a connection per transaction: TCP_CRR,
// and TCP_CC, whose transactions carry no data.
var connLoops = &Loops{
	Client: connClient,
	Mux:    mux.PrepareCRR,
	Server: connServer,
}

// connClient is the client loop of a workload with a connection per
// transaction.
func connClient(f *ClientFlow) (workload.ClientLoop, error) {
	s := f.Spec
	l := &workload.CRR{Loop: f.Loop, Remote: f.Remote, Local: f.Local, Walk: f.Walk, NoDelay: s.NoDelay,
		Request: s.Request, Response: s.Response, FastOpen: s.FastOpen, SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer}
	l.TCPInfo = s.Knobs.TCPInfo
	if s.Knobs.Given() {
		l.Knobs = &s.Knobs
	}
	l.Prepare()
	return l, nil
}

// connServer is the server loop of a workload with a connection per
// transaction: it accepts, reads the request, answers and closes first.
func connServer(p *ServerParams) workload.ServerLoop {
	return &workload.CRRServer{LFD: p.FD, Request: p.Request, Response: p.Response, FastOpen: p.FastOpen,
		Allowed: p.Allowed, Stop: p.Stop, Check: p.Check, Transactions: p.Transactions, TCPInfo: p.TCPInfo}
}
