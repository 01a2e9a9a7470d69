package npwire

import (
	"bytes"
	"reflect"
	"testing"
)

// The layouts put each field at the word netperf's C structures put it.
func TestOmniLayoutWords(t *testing.T) {
	r := &OmniRequest{SendBufSize: -1, RequestSize: 32, ResponseSize: 64, Flags: OmniNoDelay, CPURate: 100,
		TestLength: -100, DataPort: 5001, IPFamily: NFInet6, SocketType: NSTDgram, Protocol: 17,
		Direction: DirSend | DirRecv, SocketTOS: -1, CongControl: "bbr", FillFile: "/tmp/x"}
	m := r.Message(3)
	for _, c := range []struct {
		word int
		want uint32
	}{{0, 0xffffffff}, {5, 32}, {11, 64}, {12, 1}, {14, 0xffffff9c}, {20, 5001}, {21, 6}, {22, 2}, {23, 17}, {24, 6}, {37, 0xffffffff}} {
		if got := m.Word(c.word); got != c.want {
			t.Errorf("word %d = %#x, want %#x", c.word, got, c.want)
		}
	}
	if m.Float(13) != 100 {
		t.Errorf("cpu_rate = %v", m.Float(13))
	}
	b := m.Bytes()
	if len(b) != MessageSize || !bytes.Equal(b[:8], []byte{0, 0, 0, 97, 0, 0, 0, 3}) {
		t.Fatalf("header % x", b[:8])
	}
	if got := string(b[8+4*38 : 8+4*38+3]); got != "bbr" {
		t.Errorf("cong_control at byte %d = %q", 8+4*38, got)
	}
	m2, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := DecodeOmniRequest(m2); !reflect.DeepEqual(got, r) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
	}
}

func TestRoundTrips(t *testing.T) {
	res := &OmniResults{BytesReceived: 1<<40 + 7, RecvCalls: 9, BytesSent: 5, ElapsedTime: 1.5, CPUUtil: -1,
		CPUMethod: ProcStat, NumCPUs: 2, CongControl: "cubic", Ifname: "lo"}
	m := res.Message(0)
	if m.Word(0) != 1<<8 || m.Word(1) != 7 {
		t.Errorf("bytes_received hi, lo = %d, %d", m.Word(0), m.Word(1))
	}
	if got := DecodeOmniResults(m); !reflect.DeepEqual(got, res) {
		t.Errorf("results:\n got %+v\nwant %+v", got, res)
	}
	rsp := &OmniResponse{RecvBufSize: 131072, DataPort: 4000, CPURate: 100, SystemModel: "x", CPUModel: "y"}
	if got := DecodeOmniResponse(rsp.Message(0)); !reflect.DeepEqual(got, rsp) {
		t.Errorf("response:\n got %+v\nwant %+v", got, rsp)
	}
	cc := &TCPCCRequest{RecvBufSize: -1, RequestSize: 1, ResponseSize: 1, CPURate: 0, TestLength: 2, IPFamily: NFInet}
	if got := DecodeTCPCCRequest(cc.Message(-1)); !reflect.DeepEqual(got, cc) {
		t.Errorf("tcp_cc request: %+v", got)
	}
	ccr := &TCPCCResponse{DataPort: 9, CPURate: 1}
	if got := DecodeTCPCCResponse(ccr.Message(0)); !reflect.DeepEqual(got, ccr) {
		t.Errorf("tcp_cc response: %+v", got)
	}
	ccs := &TCPCCResults{TransReceived: 10, ElapsedTime: 1, CPUUtil: -1, ServDem: -1, NumCPUs: 2}
	if got := DecodeTCPCCResults(ccs.Message(0)); !reflect.DeepEqual(got, ccs) {
		t.Errorf("tcp_cc results: %+v", got)
	}
}

func TestStringsAreCut(t *testing.T) {
	r := &OmniRequest{CongControl: "a-very-long-congestion-name"}
	got := DecodeOmniRequest(r.Message(0)).CongControl
	if got != "a-very-long-con" {
		t.Errorf("cut to %q", got)
	}
	// An unterminated array from the peer is read to its end, not past it.
	m := &Message{}
	for i := range m.Body {
		m.Body[i] = 'x'
	}
	if s := DecodeOmniRequest(m).CongControl; len(s) != 16 {
		t.Errorf("unterminated cong_control read as %d bytes", len(s))
	}
}

func TestParseShort(t *testing.T) {
	if _, err := Parse(make([]byte, 100)); err == nil {
		t.Error("a 100-byte message parsed")
	}
	if _, err := Read(bytes.NewReader(make([]byte, 655))); err == nil {
		t.Error("655 bytes read as a message")
	}
}

// FuzzDecode: any 656 bytes decode as every layout without a panic, and
// what a layout decodes re-encodes to the same words.
func FuzzDecode(f *testing.F) {
	f.Add((&OmniRequest{TestLength: 10, CongControl: "cubic"}).Message(-1).Bytes())
	f.Add((&OmniResults{BytesSent: 99}).Message(0).Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < MessageSize {
			b = append(b, make([]byte, MessageSize-len(b))...)
		}
		m, err := Parse(b[:MessageSize])
		if err != nil {
			t.Fatal(err)
		}
		_ = Name(m.Type)
		r := DecodeOmniRequest(m)
		m2 := r.Message(m.Word2)
		for i := 0; i < OmniRequestCutoff; i++ {
			if m2.Word(i) != m.Word(i) {
				t.Fatalf("word %d: %#x became %#x", i, m.Word(i), m2.Word(i))
			}
		}
		// Once through the layout, a message is a fixed point (a float
		// may be NaN and an unterminated string is cut, so compare bytes).
		if m3 := DecodeOmniRequest(m2).Message(m2.Word2); !bytes.Equal(m3.Bytes(), m2.Bytes()) {
			t.Fatalf("second encoding differs")
		}
		DecodeOmniResponse(m)
		DecodeOmniResults(m)
		DecodeTCPCCRequest(m)
		DecodeTCPCCResponse(m)
		DecodeTCPCCResults(m)
	})
}
