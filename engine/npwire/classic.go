package npwire

// TCPCCRequest is the body of DO_TCP_CC, the classic connect/close test
// (netperf 2.7 has not moved it onto omni): int words throughout.
type TCPCCRequest struct {
	RecvBufSize  int32
	SendBufSize  int32
	RecvAlign    int32
	RecvOffset   int32
	SendAlign    int32
	SendOffset   int32
	RequestSize  int32
	ResponseSize int32
	NoDelay      int32
	MeasureCPU   int32
	CPURate      float32
	TestLength   int32 // seconds; negative: a count of transactions
	SoRcvAvoid   int32
	SoSndAvoid   int32
	Port         int32 // the data port to bind; 0: any
	IPFamily     int32 // NF_INET, NF_INET6
}

func (r *TCPCCRequest) walk(w *walker) {
	for _, p := range []*int32{&r.RecvBufSize, &r.SendBufSize, &r.RecvAlign, &r.RecvOffset,
		&r.SendAlign, &r.SendOffset, &r.RequestSize, &r.ResponseSize, &r.NoDelay, &r.MeasureCPU} {
		w.i32(p)
	}
	w.f32(&r.CPURate)
	for _, p := range []*int32{&r.TestLength, &r.SoRcvAvoid, &r.SoSndAvoid, &r.Port, &r.IPFamily} {
		w.i32(p)
	}
}

// Message is the DO_TCP_CC request carrying r; cpu as for OmniRequest.
func (r *TCPCCRequest) Message(cpu int32) *Message { return encode(TypeDoTCPCC, cpu, r) }

// DecodeTCPCCRequest reads the body of a DO_TCP_CC message.
func DecodeTCPCCRequest(m *Message) *TCPCCRequest {
	r := &TCPCCRequest{}
	decode(m, r)
	return r
}

// TCPCCResponse is the body of TCP_CC_RESPONSE.
type TCPCCResponse struct {
	RecvBufSize int32
	NoDelay     int32
	MeasureCPU  int32
	TestLength  int32
	SendBufSize int32
	DataPort    int32
	CPURate     float32
	SoRcvAvoid  int32
	SoSndAvoid  int32
}

func (r *TCPCCResponse) walk(w *walker) {
	for _, p := range []*int32{&r.RecvBufSize, &r.NoDelay, &r.MeasureCPU, &r.TestLength, &r.SendBufSize, &r.DataPort} {
		w.i32(p)
	}
	w.f32(&r.CPURate)
	w.i32(&r.SoRcvAvoid)
	w.i32(&r.SoSndAvoid)
}

// Message is the TCP_CC_RESPONSE carrying r.
func (r *TCPCCResponse) Message(errno int32) *Message { return encode(TypeTCPCCResponse, errno, r) }

// DecodeTCPCCResponse reads the body of a TCP_CC_RESPONSE message.
func DecodeTCPCCResponse(m *Message) *TCPCCResponse {
	r := &TCPCCResponse{}
	decode(m, r)
	return r
}

// TCPCCResults is the body of TCP_CC_RESULTS.
type TCPCCResults struct {
	BytesReceived uint32
	RecvCalls     uint32
	TransReceived uint32
	ElapsedTime   float32
	CPUUtil       float32 // -1 if not measured
	ServDem       float32 // -1 if not measured
	CPUMethod     int32
	NumCPUs       int32
}

func (r *TCPCCResults) walk(w *walker) {
	w.u32(&r.BytesReceived)
	w.u32(&r.RecvCalls)
	w.u32(&r.TransReceived)
	w.f32(&r.ElapsedTime)
	w.f32(&r.CPUUtil)
	w.f32(&r.ServDem)
	w.i32(&r.CPUMethod)
	w.i32(&r.NumCPUs)
}

// Message is the TCP_CC_RESULTS carrying r.
func (r *TCPCCResults) Message(errno int32) *Message { return encode(TypeTCPCCResults, errno, r) }

// DecodeTCPCCResults reads the body of a TCP_CC_RESULTS message.
func DecodeTCPCCResults(m *Message) *TCPCCResults {
	r := &TCPCCResults{}
	decode(m, r)
	return r
}
