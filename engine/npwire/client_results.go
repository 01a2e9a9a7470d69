package npwire

import (
	"fmt"
	"math"
	"math/bits"
	"syscall"
)

// Figures is what a netserver counted in one test, from its results
// message, checked: counts as sent, times and CPU figures that make sense
// or an error. (The results' failed_sends is left out: netserver 2.7.1
// never sets it, and it arrives as garbage.)
type Figures struct {
	Transactions  uint64
	BytesSent     uint64
	BytesReceived uint64
	SendCalls     uint64
	RecvCalls     uint64
	Elapsed       float64 // seconds, netserver's own clock
	// RecvBuf and SendBuf are the data socket's buffers at the end of
	// the test (omni only; 0 if not reported).
	RecvBuf, SendBuf int
	// CPU is the server's system-wide CPU utilisation, when it was asked
	// to measure it and reported a usable figure; nil otherwise.
	CPU *CPU
	// CPUWhy, when the CPU was asked for and CPU is nil, says what
	// netserver sent instead.
	CPUWhy string
}

// CPU is a netserver's CPU measurement.
type CPU struct {
	Util   float64 // percent of the whole machine, within [0, 100]
	NumCPU int
	Method uint32 // CPU measurement method (ProcStat on Linux)
}

// maxElapsed bounds a plausible elapsed time (a week and a day).
const maxElapsed = 8 * 24 * 3600

// swap32 is t with its bytes in the other order: the type a netserver's
// results message carries (it never sets the type, so its earlier
// response code arrives byte-swapped twice over; see the package notes).
func swap32(t int32) int32 { return int32(bits.ReverseBytes32(uint32(t))) }

// resultsType reports whether t is a type a netserver's results message
// may carry for a test whose response was resp and results res.
func resultsType(t, resp, res int32) bool {
	return t == res || t == resp || t == swap32(resp) || t == swap32(res)
}

// ServerError is a netserver's errno in a response or results message.
type ServerError struct {
	What  string // "DO_OMNI", "results"
	Errno int32
}

func (e *ServerError) Error() string {
	if e.Errno == UnknownRequest {
		return fmt.Sprintf("netserver does not know %s (errno %d, its answer to an unknown request)", e.What, e.Errno)
	}
	msg := fmt.Sprintf("netserver failed %s with errno %d", e.What, e.Errno)
	if e.Errno > 0 && e.Errno < 4096 {
		msg += " (" + syscall.Errno(e.Errno).Error() + " on Linux)"
	}
	return msg
}

// CheckResponse checks that m is the response to a request of type req
// whose response is of type resp: the type, and errno 0.
func CheckResponse(m *Message, req, resp int32) error {
	if m.Type != resp {
		if m.Word2 != 0 && (m.Type == req || m.Type == 0) {
			// netserver answers an unknown request with the request's own
			// buffer and errno 998.
			return &ServerError{What: Name(req), Errno: m.Word2}
		}
		return fmt.Errorf("netserver answered %s with %s (type %d, errno %d), want %s: a netserver of another version?",
			Name(req), Name(m.Type), m.Type, m.Word2, Name(resp))
	}
	if m.Word2 != 0 {
		return &ServerError{What: Name(req), Errno: m.Word2}
	}
	return nil
}

// checkResults checks the type and errno of a results message.
func checkResults(m *Message, resp, res int32) error {
	if m.Word2 != 0 {
		return &ServerError{What: "the test", Errno: m.Word2}
	}
	if !resultsType(m.Type, resp, res) {
		return fmt.Errorf("netserver sent %s (type %#x) where its results belong: a netserver of another version?", Name(m.Type), uint32(m.Type))
	}
	return nil
}

// checkElapsed refuses an elapsed time that is not one.
func checkElapsed(e float32) (float64, error) {
	f := float64(e)
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > maxElapsed {
		return 0, fmt.Errorf("netserver's results carry an elapsed time of %v s, which is not a time", e)
	}
	return f, nil
}

// PadAvoided is how a test escapes netserver's padded timer, as the reason
// netserver's CPU figure is no measurement says it (a front end may name
// its own option instead).
const PadAvoided = "a test of a given number of transactions, not a duration, avoids the pad"

// cpuWhy says why netserver's CPU words are no measurement.
func cpuWhy(util float32, ncpu int32) string {
	u := float64(util)
	switch {
	case ncpu <= 0 || ncpu > 1<<16:
		return fmt.Sprintf("netserver reported %d CPUs", ncpu)
	case u < -0.5 && u > -1.5:
		return "netserver measured no CPU (-1)"
	case u > 100.5 && u < 1e6:
		// netserver 2.7 measures a timed connection test's CPU over its
		// own timer (the test and 4 s of pad) and divides by the test's
		// length (netperf -C prints the same figure).
		return fmt.Sprintf("netserver reported %.1f %% (it measures a timed connection test over its padded timer; %s)", u, PadAvoided)
	}
	return fmt.Sprintf("netserver reported %v %%, not a utilisation", util)
}

// cpuOf is a usable CPU figure or nil: a utilisation outside [0, 100]
// by more than rounding (netserver's -1 says it measured nothing), or no
// CPUs, is no measurement.
func cpuOf(util float32, ncpu int32, method uint32) *CPU {
	u := float64(util)
	if math.IsNaN(u) || u < -0.5 || u > 100.5 || ncpu <= 0 || ncpu > 1<<16 {
		return nil
	}
	return &CPU{Util: min(max(u, 0), 100), NumCPU: int(ncpu), Method: method}
}

// OmniFigures checks and reads an omni results message; cpu says whether
// the request asked netserver to measure its CPU (without it the CPU
// words are garbage).
func OmniFigures(m *Message, cpu bool) (*Figures, error) {
	if err := checkResults(m, TypeOmniResponse, TypeOmniResults); err != nil {
		return nil, err
	}
	r := DecodeOmniResults(m)
	el, err := checkElapsed(r.ElapsedTime)
	if err != nil {
		return nil, err
	}
	f := &Figures{
		Transactions: uint64(r.TransReceived), BytesSent: r.BytesSent, BytesReceived: r.BytesReceived,
		SendCalls: uint64(r.SendCalls), RecvCalls: uint64(r.RecvCalls),
		Elapsed: el, RecvBuf: int(max(r.RecvBufSize, 0)), SendBuf: int(max(r.SendBufSize, 0)),
	}
	if cpu {
		f.CPU = cpuOf(r.CPUUtil, int32(r.NumCPUs), r.CPUMethod)
		if f.CPU == nil {
			f.CPUWhy = cpuWhy(r.CPUUtil, int32(r.NumCPUs))
		}
	}
	return f, nil
}

// TCPCCFigures checks and reads a TCP_CC results message.
func TCPCCFigures(m *Message, cpu bool) (*Figures, error) {
	if err := checkResults(m, TypeTCPCCResponse, TypeTCPCCResults); err != nil {
		return nil, err
	}
	r := DecodeTCPCCResults(m)
	el, err := checkElapsed(r.ElapsedTime)
	if err != nil {
		return nil, err
	}
	// Its bytes_received is no count: the classic tests compute it as
	// transactions × (request + response sizes of the request), and a
	// TCP_CC connection carries no data.
	f := &Figures{Transactions: uint64(r.TransReceived), RecvCalls: uint64(r.RecvCalls), Elapsed: el}
	if cpu {
		f.CPU = cpuOf(r.CPUUtil, r.NumCPUs, uint32(r.CPUMethod))
		if f.CPU == nil {
			f.CPUWhy = cpuWhy(r.CPUUtil, r.NumCPUs)
		}
	}
	return f, nil
}
