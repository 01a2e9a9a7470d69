package npwire

// Flag bits of an omni request and response (nettest_bsd.h, OMNI_*).
const (
	OmniNoDelay        = 0x00000001
	OmniUseSendfile    = 0x00000002
	OmniConnectTest    = 0x00000004
	OmniMeasureCPU     = 0x00000008
	OmniChecksumOff    = 0x00000010
	OmniRoutingAllowed = 0x00000020
	OmniWantIfname     = 0x00000040
	OmniWantIfslot     = 0x00000080
	OmniWantIfids      = 0x00000100
	OmniWantDrvinfo    = 0x00000200
	OmniFastOpen       = 0x00000800
	OmniManageFirewall = 0x00001000
	OmniUsePktinfo     = 0x00002000
	OmniUseConnected   = 0x00004000
	OmniWantDeferAcc   = 0x00008000
	OmniUseMTUDiscover = 0x00010000
	OmniWantKeepalive  = 0x80000000
)

// OmniRequestCutoff, OmniResponseCutoff and OmniResultsCutoff are how many
// words of each layout travel in network order; the character arrays come
// after them.
const (
	OmniRequestCutoff  = 38
	OmniResponseCutoff = 18
	OmniResultsCutoff  = 27
)

// OmniRequest is the body of DO_OMNI: what netperf asks netserver to do.
// Directions are the server's (DirRecv when netperf sends).
type OmniRequest struct {
	SendBufSize   int32 // SO_SNDBUF to ask for; -1 or 0: the system's
	SendSize      uint32
	SendAlign     uint32
	SendOffset    uint32
	SendWidth     uint32
	RequestSize   int32
	RecvBufSize   int32
	RecvSize      uint32
	RecvAlign     uint32
	RecvOffset    uint32
	RecvWidth     uint32
	ResponseSize  int32
	Flags         uint32
	CPURate       float32
	TestLength    int32 // seconds; negative: a count of bytes or transactions
	SoRcvAvoid    uint32
	SoSndAvoid    uint32
	SendDirty     uint32
	RecvDirty     uint32
	RecvClean     uint32
	DataPort      uint32
	IPFamily      uint32 // NF_INET, NF_INET6
	SocketType    uint32 // NST_STREAM, NST_DGRAM
	Protocol      uint32 // IPPROTO_TCP, IPPROTO_UDP
	Direction     uint32 // DirSend, DirRecv, both
	NetperfPort   uint32
	IntervalBurst uint32
	IntervalUsecs uint32
	NetperfIP     [4]uint32
	NetserverIP   [4]uint32
	SocketPrio    int32
	SocketTOS     int32
	CongControl   string // up to 15 bytes
	FillFile      string // up to 31 bytes
}

func (r *OmniRequest) walk(w *walker) {
	w.i32(&r.SendBufSize)
	w.u32(&r.SendSize)
	w.u32(&r.SendAlign)
	w.u32(&r.SendOffset)
	w.u32(&r.SendWidth)
	w.i32(&r.RequestSize)
	w.i32(&r.RecvBufSize)
	w.u32(&r.RecvSize)
	w.u32(&r.RecvAlign)
	w.u32(&r.RecvOffset)
	w.u32(&r.RecvWidth)
	w.i32(&r.ResponseSize)
	w.u32(&r.Flags)
	w.f32(&r.CPURate)
	w.i32(&r.TestLength)
	w.u32(&r.SoRcvAvoid)
	w.u32(&r.SoSndAvoid)
	w.u32(&r.SendDirty)
	w.u32(&r.RecvDirty)
	w.u32(&r.RecvClean)
	w.u32(&r.DataPort)
	w.u32(&r.IPFamily)
	w.u32(&r.SocketType)
	w.u32(&r.Protocol)
	w.u32(&r.Direction)
	w.u32(&r.NetperfPort)
	w.u32(&r.IntervalBurst)
	w.u32(&r.IntervalUsecs)
	for i := range r.NetperfIP {
		w.u32(&r.NetperfIP[i])
	}
	for i := range r.NetserverIP {
		w.u32(&r.NetserverIP[i])
	}
	w.i32(&r.SocketPrio)
	w.i32(&r.SocketTOS)
	off := 4 * OmniRequestCutoff
	w.str(&r.CongControl, &off, 16)
	w.str(&r.FillFile, &off, 32)
}

// Message is the DO_OMNI request carrying r; cpu is the CPU netserver is
// to bind to (-1: none).
func (r *OmniRequest) Message(cpu int32) *Message { return encode(TypeDoOmni, cpu, r) }

// DecodeOmniRequest reads the body of a DO_OMNI message.
func DecodeOmniRequest(m *Message) *OmniRequest {
	r := &OmniRequest{}
	decode(m, r)
	return r
}

// OmniResponse is the body of OMNI_RESPONSE: what netserver set up.
type OmniResponse struct {
	RecvBufSize    int32
	RecvSize       uint32
	RecvWidth      int32
	SendBufSize    int32
	SendSize       uint32
	SendWidth      int32
	Flags          uint32
	CPURate        float32
	TestLength     uint32
	SoRcvAvoid     uint32
	SoSndAvoid     uint32
	DataPort       uint32 // where netperf connects its data socket
	IntervalBurst  uint32
	IntervalUsecs  uint32
	CPUFrequency   uint32 // MHz
	SecurityInfo   uint32
	SocketPrio     int32
	SocketTOS      int32
	SystemModel    string // up to 32 bytes
	CPUModel       string // up to 79 bytes
	SecurityString string // up to 15 bytes
}

func (r *OmniResponse) walk(w *walker) {
	w.i32(&r.RecvBufSize)
	w.u32(&r.RecvSize)
	w.i32(&r.RecvWidth)
	w.i32(&r.SendBufSize)
	w.u32(&r.SendSize)
	w.i32(&r.SendWidth)
	w.u32(&r.Flags)
	w.f32(&r.CPURate)
	w.u32(&r.TestLength)
	w.u32(&r.SoRcvAvoid)
	w.u32(&r.SoSndAvoid)
	w.u32(&r.DataPort)
	w.u32(&r.IntervalBurst)
	w.u32(&r.IntervalUsecs)
	w.u32(&r.CPUFrequency)
	w.u32(&r.SecurityInfo)
	w.i32(&r.SocketPrio)
	w.i32(&r.SocketTOS)
	off := 4 * OmniResponseCutoff
	w.str(&r.SystemModel, &off, 33)
	w.str(&r.CPUModel, &off, 80)
	w.str(&r.SecurityString, &off, 16)
}

// Message is the OMNI_RESPONSE carrying r; errno is the server's error
// (0: none).
func (r *OmniResponse) Message(errno int32) *Message { return encode(TypeOmniResponse, errno, r) }

// DecodeOmniResponse reads the body of an OMNI_RESPONSE message.
func DecodeOmniResponse(m *Message) *OmniResponse {
	r := &OmniResponse{}
	decode(m, r)
	return r
}

// OmniResults is the body of OMNI_RESULTS: what netserver counted.
type OmniResults struct {
	BytesReceived    uint64
	RecvCalls        uint32
	RecvBufSize      int32 // SO_RCVBUF at the end of the test
	BytesSent        uint64
	SendCalls        uint32
	SendBufSize      int32 // SO_SNDBUF at the end of the test
	FailedSends      uint32
	TransReceived    uint32
	ElapsedTime      float32 // seconds
	CPUUtil          float32 // percent, -1 if not measured
	CPUPercentUser   float32
	CPUPercentSystem float32
	CPUPercentIOWait float32
	CPUPercentIRQ    float32
	CPUPercentSWIntr float32
	ServDem          float32
	CPUMethod        uint32
	NumCPUs          uint32
	PeakCPUID        int32
	PeakCPUUtil      float32
	Vendor           int32
	Device           int32
	Subvendor        int32
	Subdevice        int32
	TransportRetrans int32
	Ifname           string
	Driver           string
	Version          string
	Firmware         string
	Bus              string
	Ifslot           string
	CongControl      string
}

func (r *OmniResults) walk(w *walker) {
	// 64-bit counts travel as hi, lo words in front of their neighbours.
	w.u64(&r.BytesReceived)
	w.u32(&r.RecvCalls)
	w.i32(&r.RecvBufSize)
	w.u64(&r.BytesSent)
	w.u32(&r.SendCalls)
	w.i32(&r.SendBufSize)
	w.u32(&r.FailedSends)
	w.u32(&r.TransReceived)
	w.f32(&r.ElapsedTime)
	w.f32(&r.CPUUtil)
	w.f32(&r.CPUPercentUser)
	w.f32(&r.CPUPercentSystem)
	w.f32(&r.CPUPercentIOWait)
	w.f32(&r.CPUPercentIRQ)
	w.f32(&r.CPUPercentSWIntr)
	w.f32(&r.ServDem)
	w.u32(&r.CPUMethod)
	w.u32(&r.NumCPUs)
	w.i32(&r.PeakCPUID)
	w.f32(&r.PeakCPUUtil)
	w.i32(&r.Vendor)
	w.i32(&r.Device)
	w.i32(&r.Subvendor)
	w.i32(&r.Subdevice)
	w.i32(&r.TransportRetrans)
	off := 4 * OmniResultsCutoff
	w.str(&r.Ifname, &off, 16)
	w.str(&r.Driver, &off, 32)
	w.str(&r.Version, &off, 32)
	w.str(&r.Firmware, &off, 32)
	w.str(&r.Bus, &off, 32)
	w.str(&r.Ifslot, &off, 16)
	w.str(&r.CongControl, &off, 16)
}

// Message is the OMNI_RESULTS carrying r.
func (r *OmniResults) Message(errno int32) *Message { return encode(TypeOmniResults, errno, r) }

// DecodeOmniResults reads the body of an OMNI_RESULTS message.
func DecodeOmniResults(m *Message) *OmniResults {
	r := &OmniResults{}
	decode(m, r)
	return r
}
