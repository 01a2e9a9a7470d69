package server

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"netscript/engine/limits"
	"netscript/engine/npwire"
)

var writeNetperfCorpus = flag.Bool("write-netperf-corpus", false, "write FuzzNetperfRequest's seed corpus to testdata/fuzz")

// npSeeds are requests netperf 2.7.1 sends (as seen on the wire) and a few
// hostile ones.
func npSeeds() map[string]*npwire.Message {
	rr := npRR()
	stream := npRR()
	stream.Direction, stream.RequestSize, stream.ResponseSize = npwire.DirRecv, -1, -1
	maerts := *stream
	maerts.Direction = npwire.DirSend
	crr := npRR()
	crr.Flags |= npwire.OmniConnectTest | npwire.OmniFastOpen
	udp := npRR()
	udp.Protocol, udp.SocketType, udp.NetperfPort = 17, npwire.NSTDgram, 42471
	udps := *stream
	udps.Protocol, udps.SocketType = 17, npwire.NSTDgram
	v6 := npRR()
	v6.IPFamily, v6.Flags, v6.TestLength = npwire.NFInet6, v6.Flags|npwire.OmniMeasureCPU|npwire.OmniNoDelay, -100
	huge := npRR()
	huge.RequestSize, huge.DataPort, huge.TestLength = 1<<31-1, 70000, 1<<30
	cc := &npwire.TCPCCRequest{RecvBufSize: -1, SendBufSize: -1, RecvAlign: 8, SendAlign: 8, RequestSize: 1, ResponseSize: 1,
		TestLength: 1, IPFamily: npwire.NFInet}
	sendfile := &npwire.TCPStreamRequest{RecvBufSize: -1, SendBufSize: -1, RecvAlign: 8, TestLength: 10, IPFamily: npwire.NFInet}
	return map[string]*npwire.Message{
		"tcp_rr": rr.Message(-1), "tcp_rr_cpu0": rr.Message(0), "tcp_stream": stream.Message(-1),
		"tcp_maerts": maerts.Message(-1), "tcp_crr_fastopen": crr.Message(-1), "udp_rr": udp.Message(-1),
		"udp_stream": udps.Message(-1), "tcp_rr_v6_cpu_count": v6.Message(-1), "absurd": huge.Message(-1),
		"tcp_cc": cc.Message(-1), "tcp_sendfile": sendfile.Message(-1), "sysinfo": {Type: npwire.TypeDoSysinfo}, "sctp": {Type: npwire.TypeDoSCTPStream},
	}
}

// TestWriteNetperfCorpus writes the seed corpus (go test -run
// TestWriteNetperfCorpus -write-netperf-corpus).
func TestWriteNetperfCorpus(t *testing.T) {
	if !*writeNetperfCorpus {
		t.Skip("only with -write-netperf-corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzNetperfRequest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, m := range npSeeds() {
		b := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", m.Bytes())
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzNetperfRequest feeds 656 untrusted bytes to what turns them into a
// test (npwire.Parse, then parseNetperf): nothing panics, and a request
// that is accepted is one the native checks accept, within every bound the
// data path relies on, with a timer that ends it.
func FuzzNetperfRequest(f *testing.F) {
	for _, m := range npSeeds() {
		f.Add(m.Bytes())
	}
	lim := limits.Default()
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < npwire.MessageSize {
			b = append(b, make([]byte, npwire.MessageSize-len(b))...)
		}
		m, err := npwire.Parse(b[:npwire.MessageSize])
		if err != nil {
			t.Fatal(err)
		}
		p, err := parseNetperf(&lim, m, -1)
		if err != nil {
			if errnoOf(err) == 0 {
				t.Fatalf("refused with errno 0: %v", err)
			}
			return
		}
		s := &p.setup
		if p.w == nil || p.timer <= 0 || p.timer > lim.MaxDuration+npwire.PadTime*1e9 {
			t.Fatalf("plan %+v", p)
		}
		if _, err := CheckSetup(&lim, s); err != nil {
			t.Fatalf("accepted a setup the native checks refuse: %v (%+v)", err, s)
		}
		if s.Request < 0 || s.Response < 0 || s.Request > lim.MaxMessage || s.Response > lim.MaxMessage ||
			s.SendSize < 0 || s.RecvSize < 0 || s.SendBuffer < 0 || s.RecvBuffer < 0 || s.SendBuffer > lim.MaxBuffer ||
			s.RecvBuffer > lim.MaxBuffer || s.DataPort < 0 || s.DataPort > 65535 {
			t.Fatalf("out of bounds: %+v", s)
		}
		if p.w.Messages && (s.Request < 1 || s.Response < 1) {
			t.Fatalf("an RR test without a request or response: %+v", s)
		}
		if p.omni == nil && p.cc == nil && p.ts == nil {
			t.Fatal("a plan without its request")
		}
	})
}
