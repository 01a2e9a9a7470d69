package npwire

import "strings"

// SysinfoDeprecatedAnswer is what netserver 2.7 answers DO_SYSINFO with: four
// comma-led "Deprecated" fields where it once named its system.
const SysinfoDeprecatedAnswer = "," + SysinfoDeprecated + "," + SysinfoDeprecated + "," + SysinfoDeprecated + "," + SysinfoDeprecated

// SysinfoResponse is the SYSINFO_RESPONSE to DO_SYSINFO: its body is a
// NUL-terminated string of comma-led fields, sent raw (no word of it is put
// in network order).
type SysinfoResponse struct {
	Fields []string // without their leading commas
}

// Message is the SYSINFO_RESPONSE carrying r.
func (r *SysinfoResponse) Message() *Message {
	m := &Message{Type: TypeSysinfoResponse}
	var b strings.Builder
	for _, f := range r.Fields {
		b.WriteByte(',')
		b.WriteString(f)
	}
	m.SetString(0, len(m.Body), b.String())
	return m
}

// CPUCalibrateResponse is netserver's answer to CPU_CALIBRATE (the
// response carries the request's code): the rate its CPU meter calibrated
// (netserver on Linux measures with /proc/stat, which needs none, and says
// 100) and its CPU count, both in network order.
type CPUCalibrateResponse struct {
	Rate    float32
	NumCPUs int32
}

func (r *CPUCalibrateResponse) walk(w *walker) {
	w.f32(&r.Rate)
	w.i32(&r.NumCPUs)
}

// Message is the CPU_CALIBRATE response carrying r.
func (r *CPUCalibrateResponse) Message(errno int32) *Message {
	return encode(TypeCPUCalibrate, errno, r)
}

// DecodeCPUCalibrateResponse reads the body of a CPU_CALIBRATE response.
func DecodeCPUCalibrateResponse(m *Message) *CPUCalibrateResponse {
	r := &CPUCalibrateResponse{}
	decode(m, r)
	return r
}
