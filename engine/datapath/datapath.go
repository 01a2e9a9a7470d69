// Package datapath binds each workload of the spec registry to the data
// loops that run it: the client loop of one flow, the server loop of a
// connection or an endpoint, and, where a workload has them, the epoll
// runners of many flows on each end. engine/spec describes a test and
// needs none of this, so what only reads a test's description (output
// layout, help, the wire) does not pull in the data paths; the client, the
// server and the standing endpoints ask Of for a workload's loops.
package datapath

import (
	"fmt"
	"sync/atomic"

	"netscript/engine/mux"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// Loops are the data paths of one workload on each end.
type Loops struct {
	// Client makes one flow's client loop from the flow's sockets.
	Client func(f *ClientFlow) (workload.ClientLoop, error)
	// Mux, if set, runs a test of many flows on a few epoll threads per
	// end (spec.Spec.Multiplexed); it is set exactly when the workload's
	// MuxClient trait is.
	Mux func(flows []*mux.Flow, cfg *mux.Config) (*mux.Runner, error)
	// Server makes the server loop of one connection, or of one endpoint
	// when spec.Workload.Endpoint reports so.
	Server func(p *ServerParams) workload.ServerLoop
	// MuxServer, if set, serves the connections of a test of many flows
	// on a few epoll threads; it is set exactly when the workload's
	// MuxServer trait is.
	MuxServer func(conns []*mux.Conn, cfg mux.ServeConfig) mux.ServeStats
}

// Of returns the loops of workload w. Every workload of spec.Workloads has
// loops (TestEveryWorkloadHasLoops); a workload made elsewhere has none,
// which is a programmer's mistake.
func Of(w *spec.Workload) *Loops {
	if l := bindings()[w]; l != nil {
		return l
	}
	panic(fmt.Sprintf("datapath: workload %s has no data loops bound in engine/datapath", w.Name))
}

// bindings maps each workload of the registry to its loops: one line per
// workload, each set in the workload's own file of this package.
func bindings() map[*spec.Workload]*Loops {
	return map[*spec.Workload]*Loops{
		spec.TCPRR:     tcpRR,
		spec.TCPCRR:    connLoops,
		spec.TCPCC:     connLoops,
		spec.UDPRR:     udpRR,
		spec.TCPStream: tcpStream,
		spec.TCPMaerts: tcpMaerts,
		spec.UDPStream: udpStream,
	}
}

// ClientFlow is what a workload's client loop is made from: the test, one
// flow's sockets and addresses, and the loop state every flow starts with.
type ClientFlow struct {
	Spec *spec.Spec
	// Loop is the shared loop state, filled in: limits, stop flag,
	// histogram, pacer and interim samples.
	Loop workload.Loop
	// FD is the flow's connected data socket; -1 for a workload that
	// opens a connection per transaction.
	FD     int
	Family int        // unix.AF_INET or unix.AF_INET6
	Remote *sock.Addr // the server's data endpoint
	// Local and Walk, for a connection per transaction: the source each
	// connection binds (nil: the kernel's choice) and the walk over
	// source ports, if one was asked for.
	Local *sock.Addr
	Walk  *workload.PortWalk
	// SendSize and RecvSize are the bulk sizes in use on this end.
	SendSize, RecvSize int
}

// ServerParams is what a workload's server loop is made from.
type ServerParams struct {
	// FD is the endpoint's listener or socket when Endpoint reports so,
	// else one accepted connection.
	FD                       int
	Request, Response, Burst int
	SendSize, RecvSize       int     // bulk sizes in use on this end
	Bytes                    uint64  // ServerSends: send exactly this many bytes; 0: until Stop
	Rate                     float64 // ServerSends: sends per second; 0: unpaced
	FastOpen                 bool    // count connections whose SYN carried data
	Standing                 bool    // no control connection: serve until Stop
	EndOnEmpty               bool    // UDP_RR: an empty datagram ends the test (netperf's end-of-test signal)
	Transactions             uint64  // a connection per transaction: end after serving this many (netperf -l -N); 0: until Stop
	Allowed                  *workload.Allow
	Stop                     *atomic.Bool
	// Check, for a connection per transaction, is called every
	// workload.CRRCheckEvery accepts (the daemon's connection rate bound).
	Check func() error
	// TCPInfo, for a connection per transaction, reads TCP_INFO of every
	// connection before it closes (tcp_info=True).
	TCPInfo bool
	// QuickAck re-arms TCP_QUICKACK after each receive (quickack=True).
	QuickAck bool
	// ZeroCopy sends with MSG_ZEROCOPY (TCP_MAERTS, zerocopy=True).
	ZeroCopy bool
}
