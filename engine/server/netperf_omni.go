package server

import (
	"netscript/engine/npwire"
	"netscript/engine/spec"
)

// omniShape is how netperf's omni request describes a test: protocol and
// socket type, the direction of the data from the server's point of view
// (DirRecv when netperf sends), and whether each transaction is a
// connection of its own.
type omniShape struct {
	protocol, socketType, direction uint32
	connect                         bool
}

// omniShapeOf is the omni request of workload w, from its traits: TCP or
// UDP; a bulk test one way (the server sends or receives), a
// request/response test both ways, a test whose transactions carry no data
// (TCP_CC) neither; a connection per transaction sets the connect flag.
func omniShapeOf(w *spec.Workload) omniShape {
	sh := omniShape{protocol: 6, socketType: npwire.NSTStream, connect: w.PerTransaction}
	if w.Datagram {
		sh.protocol, sh.socketType = 17, npwire.NSTDgram
	}
	switch {
	case w.Bulk && w.ServerSends:
		sh.direction = npwire.DirSend
	case w.Bulk:
		sh.direction = npwire.DirRecv
	case w.Messages:
		sh.direction = npwire.DirSend | npwire.DirRecv
	}
	return sh
}

// omniWorkload finds the workload an omni request of shape sh runs, or
// nil if netscript runs none so.
func omniWorkload(sh omniShape) *spec.Workload {
	for _, w := range spec.Workloads() {
		// The first of a shape is the plain test (tcp_stream before
		// tcp_sendfile and tcp_bidir, whose server sides are its); a
		// UNIX domain test is never one netperf asks for by omni.
		if !w.Unix && omniShapeOf(w) == sh {
			return w
		}
	}
	return nil
}

// classicWorkload finds the workload netperf asks for with the classic
// request of type t (DO_TCP_CC), or nil.
func classicWorkload(t int32) *spec.Workload {
	for _, w := range spec.Workloads() {
		if w.NetperfClassic != 0 && w.NetperfClassic == t {
			return w
		}
	}
	return nil
}
