package client

import (
	"math"
	"time"

	"netscript/engine/npwire"
	"netscript/engine/spec"
)

// Requests to a netserver, as netperf 2.7.1 sends them (seen on the wire:
// /tmp/spy transcripts): -1 for "the system's default", 8-byte alignment,
// directions from the server's point of view.

// npTestLength is the test length a request carries: whole seconds, or a
// count as a negative number. netserver runs its own timer of that length
// (plus npwire.PadTime when it receives) only as a backstop: a test the
// client ends (a half-close, an end-of-test datagram) ends there. When the
// server sends (TCP_MAERTS) its timer is the end of the data, as netperf
// asks for it: netserver started it at its accept, a little before the
// client's interval began, so its close ends the test (npMaertsEnd).
func npTestLength(s *spec.Spec) int32 {
	switch {
	case s.Transactions > 0:
		return -int32(s.Transactions)
	case s.Bytes > 0:
		return -int32(s.Bytes)
	}
	secs := int32(min(math.Ceil(s.Duration.Seconds()), math.MaxInt32-2))
	return max(secs, 1)
}

// npBuffer is a buffer size to ask netserver for: -1 keeps its default.
func npBuffer(n int) int32 {
	if n <= 0 {
		return -1
	}
	return int32(n)
}

// npCPU is the request's second word: the CPU netserver binds to, -1 none.
func npCPU(s *spec.Spec) int32 {
	if s.RemoteCPU == nil {
		return -1
	}
	return int32(*s.RemoteCPU)
}

// omniRequest is flow i's DO_OMNI for the test s over address family nf
// (npwire.NFInet, NFInet6); localPort is the flow's source port if it
// binds one.
func omniRequest(s *spec.Spec, i int, nf uint32, localPort int) *npwire.Message {
	k := s.Workload
	const unset = math.MaxUint32 // -1: netserver's default
	r := &npwire.OmniRequest{
		SendBufSize: npBuffer(s.RemoteSendBuffer), RecvBufSize: npBuffer(s.RemoteRecvBuffer),
		SendSize: unset, RecvSize: unset, SendAlign: 8, RecvAlign: 8,
		RequestSize: -1, ResponseSize: -1,
		TestLength: npTestLength(s),
		SendDirty:  unset, RecvDirty: unset, RecvClean: unset,
		DataPort:   uint32(s.DataPortFor(i)),
		IPFamily:   nf,
		SocketType: npwire.NSTStream, Protocol: 6,
		NetperfPort: uint32(localPort),
		SocketPrio:  -1, SocketTOS: -1,
	}
	if k.Datagram {
		r.SocketType, r.Protocol = npwire.NSTDgram, 17
	}
	if !(k.Datagram && k.Bulk) {
		r.Flags |= npwire.OmniRoutingAllowed // netperf allows routing but for UDP_STREAM
	}
	if s.NoDelay {
		r.Flags |= npwire.OmniNoDelay
	}
	if s.CPUUtil {
		r.Flags |= npwire.OmniMeasureCPU
	}
	if k.PerTransaction {
		r.Flags |= npwire.OmniConnectTest
	}
	if s.FastOpen {
		r.Flags |= npwire.OmniFastOpen
	}
	switch {
	case k.ClientSends():
		r.Direction = npwire.DirRecv
		if s.RecvSize > 0 {
			r.RecvSize = uint32(s.RecvSize)
		}
	case k.ServerSends:
		r.Direction = npwire.DirSend
		if s.SendSize > 0 {
			r.SendSize = uint32(s.SendSize)
		}
	default: // a request and its response
		r.Direction = npwire.DirSend | npwire.DirRecv
		r.RequestSize, r.ResponseSize = int32(s.Request), int32(s.Response)
		r.SendWidth, r.RecvWidth = 1, 1
	}
	return r.Message(npCPU(s))
}

// tccRequest is flow i's DO_TCP_CC, the classic test netperf 2.7 still
// sends for TCP_CC.
func tccRequest(s *spec.Spec, i int, nf uint32) *npwire.Message {
	r := &npwire.TCPCCRequest{
		RecvBufSize: npBuffer(s.RemoteRecvBuffer), SendBufSize: npBuffer(s.RemoteSendBuffer),
		RecvAlign: 8, SendAlign: 8, RequestSize: 1, ResponseSize: 1,
		TestLength: npTestLength(s), Port: int32(s.DataPortFor(i)), IPFamily: int32(nf),
	}
	if s.NoDelay {
		r.NoDelay = 1
	}
	if s.CPUUtil {
		r.MeasureCPU = 1
	}
	return r.Message(npCPU(s))
}

// npResultsWait is how long after the client's loops the results of a
// netserver may take: a test the client cannot end (a connection per
// transaction) runs until netserver's own timer, its length plus PadTime
// after the response.
func npResultsWait(s *spec.Spec) time.Duration {
	wait := max(ControlTimeout, s.ConnectTimeout) // a far end slow to set up is slow to answer

	if s.Transactions == 0 && s.Bytes == 0 && (s.Workload.PerTransaction || s.Workload.Datagram) {
		wait += time.Duration(npTestLength(s))*time.Second + npwire.PadTime*time.Second
	}
	return wait
}
