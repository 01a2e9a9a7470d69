package server

import (
	"errors"
	"fmt"
	"time"

	"netscript/engine/limits"
	"netscript/engine/npwire"
	"netscript/engine/proto"
	"netscript/engine/spec"
)

// Errnos the daemon answers a netperf request it will not run with, in the
// response's second word (netperf prints "remote error N" and the errno's
// text).
const (
	npEINVAL          = 22 // a malformed or absurd value
	npEBUSY           = 16 // over a bound on tests at once or threads
	npEAFNOSUPPORT    = 97 // an address family other than IPv4 and IPv6
	npEPROTONOSUPPORT = 93 // a protocol or direction netscript does not run
	npUnknownRequest  = npwire.UnknownRequest
)

// npError is why a netperf request is refused, with the errno netperf is
// told.
type npError struct {
	errno int32
	err   error
}

func (e *npError) Error() string { return e.err.Error() }
func (e *npError) Unwrap() error { return e.err }

func npErrorf(errno int32, format string, args ...any) error {
	return &npError{errno: errno, err: fmt.Errorf(format, args...)}
}

// errnoOf is the errno a refusal is sent with: its own, or EINVAL for a
// value the native checks refuse (out of range, or over an operator's
// bound: the log names the flag).
func errnoOf(err error) int32 {
	var ne *npError
	if errors.As(err, &ne) {
		return ne.errno
	}
	return npEINVAL
}

// npPlan is a netperf request turned into a test the daemon runs: the
// Setup its native checks and data paths take, and how netserver would
// time it.
type npPlan struct {
	w       *spec.Workload
	setup   proto.Setup
	omni    *npwire.OmniRequest      // the request, if DO_OMNI
	cc      *npwire.TCPCCRequest     // the request, if DO_TCP_CC
	ts      *npwire.TCPStreamRequest // the request, if DO_TCP_STREAM (netperf's TCP_SENDFILE)
	cpu     bool                     // measure the CPU (-C)
	timed   bool                     // test_length > 0: netserver's timer may end it
	timer   time.Duration            // when the server's own timer ends the test
	pad     time.Duration            // how much of the timer was padding (netserver's PAD_TIME)
	reqSize int                      // request and response sizes of an RR test, as answered
	rspSize int
	resp    *npwire.OmniResponse // the omni response sent, whose buffer netserver's results reuse
}

// parseNetperf turns one untrusted netperf request (DO_OMNI, DO_TCP_CC or
// DO_TCP_STREAM)
// into a test to run, within l, or says why not. Every bound of the
// native protocol applies, through CheckSetup, but for one: reused, the
// data port this server chose for the connection's previous test (netperf
// -i asks for it again) is not one the client chose.
func parseNetperf(l *limits.Limits, m *npwire.Message, reused int) (*npPlan, error) {
	var p *npPlan
	var err error
	switch m.Type {
	case npwire.TypeDoOmni:
		p, err = parseOmni(npwire.DecodeOmniRequest(m))
	case npwire.TypeDoTCPCC:
		p, err = parseTCPCC(npwire.DecodeTCPCCRequest(m))
	case npwire.TypeDoTCPStream:
		p, err = parseTCPStream(npwire.DecodeTCPStreamRequest(m))
	default:
		return nil, npErrorf(npUnknownRequest, "netperf request %s is not a test netscript runs", npwire.Name(m.Type))
	}
	if err != nil {
		return nil, err
	}
	switch {
	case m.Word2 >= 0:
		c := int(m.Word2)
		p.setup.CPU = &c
	case m.Word2 != -1:
		return nil, npErrorf(npEINVAL, "remote_cpu (-T): %d", m.Word2)
	}
	p.setup.Test, p.setup.Brand = p.w.Netperf, "netperf"
	p.setup.CPUUtil = false // measured by the netperf session itself (p.cpu)
	port := p.setup.DataPort
	if port == reused {
		p.setup.DataPort = 0
	}
	if _, err := CheckSetup(l, &p.setup); err != nil {
		return nil, err
	}
	p.setup.DataPort = port
	if !p.timed {
		p.timer = l.MaxDuration // a count: the client ends it; this is the backstop
	}
	return p, nil
}

// npSize reads a size netperf sends as -1 for "the default": 0 here.
func npSize(what string, v int32) (int, error) {
	switch {
	case v == -1 || v == 0:
		return 0, nil
	case v < 0:
		return 0, npErrorf(npEINVAL, "%s %d", what, v)
	}
	return int(v), nil
}

// npLength sets the plan's length from netperf's test_length: seconds, or
// a negative count.
func (p *npPlan) npLength(n int32, sendOnly bool) error {
	switch {
	case n > 0:
		if int64(n) > int64(spec.MaxDuration/time.Second) {
			return npErrorf(npEINVAL, "test length %d s out of range", n)
		}
		d := time.Duration(n) * time.Second
		p.timed, p.setup.DurationNs, p.timer = true, int64(d), d
		if !sendOnly {
			p.pad = npwire.PadTime * time.Second
			p.timer += p.pad
		}
	case n == 0:
		return npErrorf(npEINVAL, "test length 0")
	default:
		// A count: the client ends the test (RR, streams), or the server
		// after as many transactions (a connection per transaction) or
		// bytes (TCP_MAERTS), as netserver does.
		p.setup.Transactions = uint64(-int64(n))
		if p.w.ServerSends {
			p.setup.Bytes = uint64(-int64(n))
		}
	}
	return nil
}

// parseOmni maps an omni request onto a workload: its protocol, socket
// type, direction and connect flag say which test netperf runs.
func parseOmni(r *npwire.OmniRequest) (*npPlan, error) {
	p := &npPlan{omni: r, cpu: r.Flags&npwire.OmniMeasureCPU != 0}
	if r.IPFamily != npwire.NFInet && r.IPFamily != npwire.NFInet6 {
		return nil, npErrorf(npEAFNOSUPPORT, "address family %d", r.IPFamily)
	}
	dir := r.Direction & (npwire.DirSend | npwire.DirRecv)
	if r.Direction != dir {
		return nil, npErrorf(npEINVAL, "direction %#x", r.Direction)
	}
	connect := r.Flags&npwire.OmniConnectTest != 0
	p.w = omniWorkload(omniShape{protocol: r.Protocol, socketType: r.SocketType, direction: dir, connect: connect})
	if p.w == nil {
		return nil, npErrorf(npEPROTONOSUPPORT, "protocol %d, socket type %d, direction %d%s: not a test netscript runs",
			r.Protocol, r.SocketType, r.Direction, map[bool]string{true: ", connect test"}[connect])
	}
	s := &p.setup
	var err error
	if s.SendBuffer, err = npSize("send buffer", r.SendBufSize); err != nil {
		return nil, err
	}
	if s.RecvBuffer, err = npSize("receive buffer", r.RecvBufSize); err != nil {
		return nil, err
	}
	if r.DataPort > 65535 {
		return nil, npErrorf(npEINVAL, "data port %d", r.DataPort)
	}
	s.DataPort = int(r.DataPort)
	s.NoDelay = r.Flags&npwire.OmniNoDelay != 0 && !p.w.Datagram
	s.FastOpen = r.Flags&npwire.OmniFastOpen != 0 && p.w.Accepts(spec.OptFastOpen)
	s.Knobs = npKnobs(r, !p.w.Datagram)
	s.TCPInfo = !p.w.Datagram && !p.w.PerTransaction // its retransmissions and congestion control, read outside the loop
	switch {
	case p.w.Messages:
		if r.RequestSize <= 0 || r.ResponseSize <= 0 {
			return nil, npErrorf(npEINVAL, "request size %d, response size %d", r.RequestSize, r.ResponseSize)
		}
		s.Request, s.Response = int(r.RequestSize), int(r.ResponseSize)
		p.reqSize, p.rspSize = s.Request, s.Response
	case p.w.ServerSends:
		if s.SendSize, err = npSize("send size", int32(r.SendSize)); err != nil {
			return nil, err
		}
	case p.w.Bulk:
		if s.RecvSize, err = npSize("receive size", int32(r.RecvSize)); err != nil {
			return nil, err
		}
	}
	return p, p.npLength(r.TestLength, dir == npwire.DirSend)
}

// parseTCPCC maps netperf's classic TCP_CC request.
func parseTCPCC(r *npwire.TCPCCRequest) (*npPlan, error) {
	p := &npPlan{cc: r, cpu: r.MeasureCPU != 0}
	if err := p.classic(npwire.TypeDoTCPCC, classicRequest{r.IPFamily, r.SendBufSize, r.RecvBufSize, r.Port, r.NoDelay}); err != nil {
		return nil, err
	}
	return p, p.npLength(r.TestLength, false)
}

// classicRequest is what netperf's classic TCP requests (TCP_CC,
// TCP_STREAM) share: the address family, the socket buffers, the data
// port and TCP_NODELAY.
type classicRequest struct {
	family, sendBuf, recvBuf, port, noDelay int32
}

// classic sets p's workload from netperf's request type typ and its setup
// from what the classic requests share, refusing what netserver would.
func (p *npPlan) classic(typ int32, r classicRequest) error {
	if p.w = classicWorkload(typ); p.w == nil {
		return npErrorf(npUnknownRequest, "netperf request %s is not a test netscript runs", npwire.Name(typ))
	}
	if r.family != npwire.NFInet && r.family != npwire.NFInet6 && r.family != npwire.NFUnspec {
		return npErrorf(npEAFNOSUPPORT, "address family %d", r.family)
	}
	s := &p.setup
	var err error
	if s.SendBuffer, err = npSize("send buffer", r.sendBuf); err != nil {
		return err
	}
	if s.RecvBuffer, err = npSize("receive buffer", r.recvBuf); err != nil {
		return err
	}
	if r.port < 0 || r.port > 65535 {
		return npErrorf(npEINVAL, "data port %d", r.port)
	}
	s.DataPort = int(r.port)
	s.NoDelay = r.noDelay != 0
	return nil
}

// parseTCPStream maps netperf's classic TCP_STREAM request, which netperf
// 2.7.1 sends for TCP_SENDFILE: the far end receives as TCP_STREAM's,
// until the sender's close.
func parseTCPStream(r *npwire.TCPStreamRequest) (*npPlan, error) {
	p := &npPlan{ts: r, cpu: r.MeasureCPU != 0}
	if err := p.classic(npwire.TypeDoTCPStream, classicRequest{r.IPFamily, r.SendBufSize, r.RecvBufSize, r.Port, r.NoDelay}); err != nil {
		return nil, err
	}
	s := &p.setup
	var err error
	if s.RecvSize, err = npSize("receive size", r.RecvSize); err != nil {
		return nil, err
	}
	s.TCPInfo = true
	// test_length is the test's seconds, or its count of bytes (-l -N),
	// both positive: netserver cannot tell them apart either, and reads
	// until the sender's close, its timer a backstop. So does this one
	// (parseNetperf sets the bound's backstop for a test not timed).
	if r.TestLength == 0 {
		return nil, npErrorf(npEINVAL, "test length 0")
	}
	return p, nil
}
