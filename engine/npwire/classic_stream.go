package npwire

import "math"

// The classic TCP_STREAM request (nettest_bsd.h), which netperf 2.7.1
// still sends for TCP_SENDFILE: the far end receives as TCP_STREAM's does.

// TCPStreamRequest is the body of DO_TCP_STREAM: int words throughout.
type TCPStreamRequest struct {
	SendBufSize int32
	RecvBufSize int32
	RecvSize    int32 // bytes per receive; 0: the far end's choice
	RecvAlign   int32
	RecvOffset  int32
	NoDelay     int32
	MeasureCPU  int32
	CPURate     float32
	TestLength  int32 // seconds; negative: a count of bytes
	SoRcvAvoid  int32
	SoSndAvoid  int32
	DirtyCount  int32
	CleanCount  int32
	Port        int32 // the data port to bind; 0: any
	IPFamily    int32 // NF_INET, NF_INET6
}

func (r *TCPStreamRequest) walk(w *walker) {
	for _, p := range []*int32{&r.SendBufSize, &r.RecvBufSize, &r.RecvSize, &r.RecvAlign, &r.RecvOffset, &r.NoDelay, &r.MeasureCPU} {
		w.i32(p)
	}
	w.f32(&r.CPURate)
	for _, p := range []*int32{&r.TestLength, &r.SoRcvAvoid, &r.SoSndAvoid, &r.DirtyCount, &r.CleanCount, &r.Port, &r.IPFamily} {
		w.i32(p)
	}
}

// Message is the DO_TCP_STREAM request carrying r; cpu as for OmniRequest.
func (r *TCPStreamRequest) Message(cpu int32) *Message { return encode(TypeDoTCPStream, cpu, r) }

// DecodeTCPStreamRequest reads the body of a DO_TCP_STREAM message.
func DecodeTCPStreamRequest(m *Message) *TCPStreamRequest {
	r := &TCPStreamRequest{}
	decode(m, r)
	return r
}

// TCPStreamResponse is the body of TCP_STREAM_RESPONSE.
type TCPStreamResponse struct {
	RecvBufSize int32
	RecvSize    int32
	NoDelay     int32
	MeasureCPU  int32
	TestLength  int32
	SendBufSize int32
	DataPort    int32
	CPURate     float32
	SoRcvAvoid  int32
	SoSndAvoid  int32
}

func (r *TCPStreamResponse) walk(w *walker) {
	for _, p := range []*int32{&r.RecvBufSize, &r.RecvSize, &r.NoDelay, &r.MeasureCPU, &r.TestLength, &r.SendBufSize, &r.DataPort} {
		w.i32(p)
	}
	w.f32(&r.CPURate)
	w.i32(&r.SoRcvAvoid)
	w.i32(&r.SoSndAvoid)
}

// Message is the TCP_STREAM_RESPONSE carrying r.
func (r *TCPStreamResponse) Message(errno int32) *Message {
	return encode(TypeTCPStreamResp, errno, r)
}

// DecodeTCPStreamResponse reads the body of a TCP_STREAM_RESPONSE message.
func DecodeTCPStreamResponse(m *Message) *TCPStreamResponse {
	r := &TCPStreamResponse{}
	decode(m, r)
	return r
}

// TCPStreamResults is the body of TCP_STREAM_RESULTS.
type TCPStreamResults struct {
	BytesReceived float64
	RecvCalls     uint32
	ElapsedTime   float32
	CPUUtil       float32 // -1 if not measured
	ServDem       float32 // -1 if not measured
	CPUMethod     int32
	NumCPUs       int32
	RecvBufSize   int32
	SendBufSize   int32
}

func (r *TCPStreamResults) walk(w *walker) {
	w.f64(&r.BytesReceived)
	w.u32(&r.RecvCalls)
	w.f32(&r.ElapsedTime)
	w.f32(&r.CPUUtil)
	w.f32(&r.ServDem)
	for _, p := range []*int32{&r.CPUMethod, &r.NumCPUs, &r.RecvBufSize, &r.SendBufSize} {
		w.i32(p)
	}
}

// Message is the TCP_STREAM_RESULTS carrying r.
func (r *TCPStreamResults) Message(errno int32) *Message {
	return encode(TypeTCPStreamResults, errno, r)
}

// DecodeTCPStreamResults reads the body of a TCP_STREAM_RESULTS message.
func DecodeTCPStreamResults(m *Message) *TCPStreamResults {
	r := &TCPStreamResults{}
	decode(m, r)
	return r
}

// f64 is a double as netperf sends it: htond puts its bytes in network
// order and the message's htonl is undone on receipt, so the words are
// its high half, then its low half, as u64 sends a count (netlib.c's
// htond, send_response_n; its ntohd undoes both).
func (w *walker) f64(p *float64) {
	v := math.Float64bits(*p)
	w.u64(&v)
	*p = math.Float64frombits(v)
}
