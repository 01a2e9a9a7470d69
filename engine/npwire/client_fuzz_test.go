package npwire

import (
	"errors"
	"io"
	"math"
	"os"
	"testing"
)

// FuzzNetserverAnswer feeds untrusted bytes, as a far end at a
// netserver's address may send them, through every decoding the client
// does of them: what answered, the response and results checks, the
// figures and DO_SYSINFO's list. None may panic; figures that come back
// must be figures (finite, non-negative times, CPU within [0, 100]) and
// every error must say something.
func FuzzNetserverAnswer(f *testing.F) {
	f.Add([]byte("NETSCRPT\x00\x01"))
	f.Add([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, os.ErrDeadlineExceeded, errors.New("x")} {
			n := min(len(data), MessageSize-1)
			if what := Explain(data[:n], err); what == "" {
				t.Fatalf("Explain(%d bytes, %v) says nothing", n, err)
			}
		}
		Diagnose(data)
		b := make([]byte, MessageSize)
		copy(b, data)
		m, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, cpu := range []bool{false, true} {
			for _, dec := range []func(*Message, bool) (*Figures, error){OmniFigures, TCPCCFigures} {
				fig, err := dec(m, cpu)
				if err != nil {
					if err.Error() == "" {
						t.Fatal("an empty error")
					}
					continue
				}
				if fig == nil || math.IsNaN(fig.Elapsed) || fig.Elapsed < 0 || fig.Elapsed > maxElapsed {
					t.Fatalf("figures %+v", fig)
				}
				if c := fig.CPU; c != nil && (!cpu || math.IsNaN(c.Util) || c.Util < 0 || c.Util > 100 || c.NumCPU <= 0) {
					t.Fatalf("cpu %+v (asked: %v)", c, cpu)
				}
				if fig.RecvBuf < 0 || fig.SendBuf < 0 {
					t.Fatalf("buffers %+v", fig)
				}
			}
		}
		for _, want := range [][2]int32{{TypeDoOmni, TypeOmniResponse}, {TypeDoTCPCC, TypeTCPCCResponse}} {
			if err := CheckResponse(m, want[0], want[1]); err != nil && err.Error() == "" {
				t.Fatal("an empty error")
			}
		}
		if si, err := DecodeSysinfo(m); err == nil {
			for _, v := range []string{si.Sysname, si.Release, si.Version, si.Machine} {
				if len(v) > 128 {
					t.Fatalf("sysinfo field of %d bytes", len(v))
				}
			}
		}
		DecodeOmniResponse(m)
		DecodeTCPCCResponse(m)
	})
}

// TestNetserverAnswerCorpus: the committed seeds are what a netserver
// sends, and decode as such.
func TestNetserverAnswerCorpus(t *testing.T) {
	res := &OmniResults{BytesReceived: 5 << 32, TransReceived: 10, ElapsedTime: 1.5, CPUUtil: 37.5, NumCPUs: 2, CPUMethod: ProcStat}
	m := res.Message(0)
	m.Type = swap32(TypeOmniResponse) // as netserver 2.7.1 sends it
	f, err := OmniFigures(m, true)
	if err != nil || f.BytesReceived != 5<<32 || f.Transactions != 10 || f.Elapsed != 1.5 || f.CPU == nil || f.CPU.Util != 37.5 {
		t.Fatalf("%+v %v", f, err)
	}
	if f, _ := OmniFigures(m, false); f.CPU != nil {
		t.Error("CPU figures read when none were asked for")
	}
	res.ElapsedTime = float32(math.NaN())
	if _, err := OmniFigures(res.Message(0), false); err == nil {
		t.Error("a NaN elapsed time is accepted")
	}
	m = &Message{Type: TypeSysinfoResponse}
	m.SetString(0, len(m.Body), ",Deprecated,Deprecated,Deprecated,Deprecated")
	si, err := DecodeSysinfo(m)
	if err != nil || !si.Deprecated() {
		t.Errorf("%+v %v", si, err)
	}
	m.SetString(0, len(m.Body), "|Linux|6.8.0|#1 SMP|x86_64")
	if si, err := DecodeSysinfo(m); err != nil || si.Machine != "x86_64" || si.Version != "#1 SMP" {
		t.Errorf("%+v %v", si, err)
	}
	if what := Explain(nil, os.ErrDeadlineExceeded); what == "" {
		t.Error("silence explained by nothing")
	}
}
