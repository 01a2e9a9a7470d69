package proto

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
)

var writeTCPInfo = flag.Bool("write-tcpinfo", false, "write testdata/tcpinfo from the table of TestTCPInfoOnTheWire")

// beforeTCPInfoSetup is Setup as the release before TCP_INFO declared it
// (heartbeats, no tcp_info or knobs).
type beforeTCPInfoSetup struct {
	v3Setup
	HeartbeatNs int64 `json:"heartbeat_ns,omitempty"`
}

// TestTCPInfoOnTheWire: the messages of the TCP_INFO extension
// (testdata/tcpinfo) and how each release meets them. A server of the
// release before refuses a Setup that asks for the server's TCP_INFO
// with an Error the client recognises (TCPInfoRefused) and falls back on;
// a Setup that asks for nothing new encodes as before, so an old server
// takes it and a new server sends it no new field; Results and RunClient
// carry the sums and the knobs and read back unchanged.
func TestTCPInfoOnTheWire(t *testing.T) {
	tos := 0x10
	setup := Setup{Test: "TCP_STREAM", DurationNs: 1e10, TCPInfo: true,
		Knobs: &Knobs{Congestion: "reno", MaxPacingRate: 50e6, TOS: &tos, NotsentLowat: 16384, MSS: 1400, BusyPoll: 50, Cork: true}}
	sums := &TCPSums{Conns: 1, Retrans: 12, BytesRetrans: 17000, RTTConns: 1, RTT: 850, RTTMax: 850, RTTVar: 120, MinRTT: 400,
		Cwnd: 30, CwndMax: 30, SsthreshConns: 1, Ssthresh: 20, MSS: 1448, PacingRate: 6250000, DeliveryRate: 6000000,
		BusyTime: 1e6, RwndLimited: 5000, SndbufLimited: 100, SpanNs: 1e9, Reordering: 3, CAStates: [5]uint64{1}, Congestion: "reno"}
	results := Results{Transactions: 0, BytesReceived: 1 << 20, ElapsedNs: 1e9, TCP: sums,
		Conns: []ConnCounts{{Peer: "198.18.0.1:40000", BytesReceived: 1 << 20, TCP: sums}}}
	maerts := Results{BytesSent: 1 << 20, SendCalls: 64, ElapsedNs: 1e9, ZeroCopy: &ZeroCopy{Sends: 64, Completed: 64, Copied: 64}}
	run := RunClient{Test: TestSpecFrom(&spec.Spec{Workload: spec.TCPCRR, Flows: 1, Duration: time.Second,
		Knobs: sock.Knobs{Congestion: "cubic", TCPInfo: true, QuickAck: true}})}
	mustJSON := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var old beforeTCPInfoSetup
	refusal := Decode(TypeSetup, mustJSON(setup), &old)
	if refusal == nil {
		t.Fatal("the release before took tcp_info")
	}
	files := map[string][]byte{
		"Setup.tcp_info_knobs":        mustJSON(setup),
		"Results.tcp":                 mustJSON(results),
		"Results.zerocopy_TCP_MAERTS": mustJSON(maerts),
		"Setup.zerocopy_TCP_MAERTS":   mustJSON(Setup{Test: "TCP_MAERTS", DurationNs: 1e10, Knobs: &Knobs{ZeroCopy: true}}),
		"RunClient.knobs_TCP_CRR":     mustJSON(run),
		"Error.old_refuses_tcp_info":  mustJSON(Error{Message: refusal.Error()}),
		"Setup.asks_nothing_new":      mustJSON(Setup{Test: "UDP_STREAM", DurationNs: 1e10}),
		"Error.server_refuses_a_knob": mustJSON(Error{Message: (&sock.KnobError{Option: "congestion", End: "server", Err: 2, Extra: "it offers reno, cubic"}).Error()}),
	}
	dir := filepath.Join("testdata", "tcpinfo")
	for name, b := range files {
		path := filepath.Join(dir, name+".json")
		if *writeTCPInfo {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		rec, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run TestTCPInfoOnTheWire -write-tcpinfo)", err)
		}
		if !bytes.Equal(rec, b) {
			t.Errorf("%s: encodes to\n%s\nthe recording is\n%s", name, b, rec)
		}
	}
	var s Setup
	if err := Decode(TypeSetup, files["Setup.tcp_info_knobs"], &s); err != nil || !reflect.DeepEqual(s, setup) {
		t.Errorf("Setup.tcp_info_knobs reads as %+v (%v)", s, err)
	}
	if k := s.Knobs.Sock(); k.Congestion != "reno" || !k.HasTOS || k.TOS != 0x10 || k.MaxPacingRate != 50e6 {
		t.Errorf("the knobs as the data path sets them: %+v", k)
	}
	if err := Decode(TypeSetup, files["Setup.asks_nothing_new"], &old); err != nil {
		t.Errorf("the release before refuses a Setup that asks for nothing new: %v", err)
	}
	var r Results
	if err := Decode(TypeResults, files["Results.tcp"], &r); err != nil || !reflect.DeepEqual(r, results) {
		t.Errorf("Results.tcp reads as %+v (%v)", r, err)
	}
	if got := result.TCPOf(r.TCP.Result()); got == nil || got.Retransmits != 12 || got.RTT != 850 || got.PacingRate != 50e6 ||
		got.RwndLimitedFraction != 0.005 || got.Congestion != "reno" || got.CAState != "open" {
		t.Errorf("the sums as a result: %+v", got)
	}
	var zr Results
	if err := Decode(TypeResults, files["Results.zerocopy_TCP_MAERTS"], &zr); err != nil || !reflect.DeepEqual(zr, maerts) {
		t.Errorf("Results.zerocopy_TCP_MAERTS reads as %+v (%v)", zr, err)
	}
	var m RunClient
	if err := Decode(TypeRunClient, files["RunClient.knobs_TCP_CRR"], &m); err != nil {
		t.Fatal(err)
	}
	if got, err := m.Test.ToSpec(); err != nil || got.Knobs != (sock.Knobs{Congestion: "cubic", TCPInfo: true, QuickAck: true}) {
		t.Errorf("RunClient.knobs_TCP_CRR reads as knobs %+v (%v)", got.Knobs, err)
	}
	var e Error
	if err := Decode(TypeError, files["Error.old_refuses_tcp_info"], &e); err != nil || !TCPInfoRefused(&RemoteError{Message: e.Message}) {
		t.Errorf("the old refusal %q is not recognised (%v)", e.Message, err)
	}
	for _, other := range []string{"Error.server_refuses_a_knob"} {
		var e Error
		if Decode(TypeError, files[other], &e) != nil || TCPInfoRefused(&RemoteError{Message: e.Message}) {
			t.Errorf("%s taken for a refusal of tcp_info", other)
		}
	}
	if HeartbeatRefused(&RemoteError{Message: refusal.Error()}) {
		t.Error("a refusal of tcp_info taken for one of heartbeats")
	}
}

// TestBadKnobsOnTheWire: knobs from a peer are checked as the client checks
// them, each refusal one line naming the knob.
func TestBadKnobsOnTheWire(t *testing.T) {
	big, neg := 999, -1
	for _, c := range []struct {
		w    *spec.Workload
		k    Knobs
		want string
	}{
		{spec.TCPStream, Knobs{TOS: &big}, "tos: want a byte 0-255"},
		{spec.TCPStream, Knobs{TOS: &neg}, "tos: want a byte 0-255"},
		{spec.TCPStream, Knobs{Congestion: "../../etc"}, "congestion: want an algorithm's name"},
		{spec.TCPStream, Knobs{Congestion: "averyveryverylongname"}, "congestion: want an algorithm's name"},
		{spec.TCPStream, Knobs{MSS: 1}, "mss: want 88-65535 bytes, got 1"},
		{spec.TCPStream, Knobs{BusyPoll: 1 << 30}, "busy_poll: want 1-1000000"},
		{spec.TCPStream, Knobs{NotsentLowat: -3}, "notsent_lowat: want 1-"},
		{spec.TCPStream, Knobs{MaxPacingRate: 1 << 62}, "max_pacing_rate: at most"},
		{spec.UDPStream, Knobs{Congestion: "reno"}, "congestion: does not apply to udp_stream"},
		{spec.TCPStream, Knobs{QuickAck: true}, "quickack: does not apply to tcp_stream"},
	} {
		k := c.k.Sock()
		err := spec.CheckKnobs(c.w, &k)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%+v on %s: %v, want %q", c.k, c.w.Name, err, c.want)
		}
	}
}
