package proto

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"netscript/engine/spec"
)

var writeLive = flag.Bool("write-live", false, "write testdata/live from the table of TestLivenessOnTheWire")

// v3Setup is Setup as the release before heartbeats declared it: what a
// server of that release decodes a Setup into.
type v3Setup struct {
	Test         string   `json:"test"`
	Request      int      `json:"request,omitempty"`
	Response     int      `json:"response,omitempty"`
	Burst        int      `json:"burst,omitempty"`
	NoDelay      bool     `json:"nodelay,omitempty"`
	DataPort     int      `json:"data_port,omitempty"`
	SendBuffer   int      `json:"send_buffer,omitempty"`
	RecvBuffer   int      `json:"recv_buffer,omitempty"`
	DurationNs   int64    `json:"duration_ns,omitempty"`
	Transactions uint64   `json:"transactions,omitempty"`
	Brand        string   `json:"brand,omitempty"`
	SendSize     int      `json:"send_size,omitempty"`
	RecvSize     int      `json:"recv_size,omitempty"`
	Bytes        uint64   `json:"bytes,omitempty"`
	Rate         float64  `json:"rate,omitempty"`
	FastOpen     bool     `json:"fastopen,omitempty"`
	CPUUtil      bool     `json:"cpu_util,omitempty"`
	CPU          *int     `json:"cpu,omitempty"`
	Flows        int      `json:"flows,omitempty"`
	DataPorts    []int    `json:"data_ports,omitempty"`
	Sources      []string `json:"sources,omitempty"`
}

// TestLivenessOnTheWire: the messages of heartbeats (testdata/live, made
// with AppendFrame from the values below) and how each release meets
// them. A v3 server refuses a Setup that asks for heartbeats with an Error
// the client recognises (HeartbeatRefused) and falls back on; every v3
// Setup still decodes (TestRecordedV3) and asks for none, so a new server
// sends a v3 client no Heartbeat; a default test's RunClient carries no
// Liveness, so a v3 daemon reads it as before.
func TestLivenessOnTheWire(t *testing.T) {
	setup := Setup{Test: "TCP_STREAM", DurationNs: 1e10, HeartbeatNs: 1e9}
	mustJSON := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// What a v3 server answers that Setup with: its strict decoder's
	// refusal, sent as an Error (server.refuse).
	var old v3Setup
	refusal := Decode(TypeSetup, mustJSON(setup), &old)
	if refusal == nil {
		t.Fatal("a v3 Setup decoder took heartbeat_ns")
	}
	files := map[string][]byte{
		"Setup.heartbeat":              mustJSON(setup),
		"Heartbeat.TCP_STREAM":         mustJSON(Heartbeat{}),
		"Error.v3_refuses_heartbeat":   mustJSON(Error{Message: refusal.Error()}),
		"RunClient.liveness_off":       mustJSON(RunClient{Test: TestSpecFrom(&spec.Spec{Workload: spec.TCPRR, Liveness: spec.LivenessOff, Flows: 1})}),
		"RunClient.liveness_5s_TCP_RR": mustJSON(RunClient{Test: TestSpecFrom(&spec.Spec{Workload: spec.TCPRR, Liveness: 5 * time.Second, Flows: 1})}),
	}
	dir := filepath.Join("testdata", "live")
	for name, b := range files {
		path := filepath.Join(dir, name+".json")
		if *writeLive {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		rec, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run TestLivenessOnTheWire -write-live)", err)
		}
		if !bytes.Equal(rec, b) {
			t.Errorf("%s: encodes to\n%s\nthe recording is\n%s", name, b, rec)
		}
	}

	// This release reads each of them.
	var s Setup
	if err := Decode(TypeSetup, files["Setup.heartbeat"], &s); err != nil || s.HeartbeatNs != 1e9 {
		t.Errorf("Setup.heartbeat: %+v, %v", s, err)
	}
	if err := Decode(TypeHeartbeat, files["Heartbeat.TCP_STREAM"], &Heartbeat{}); err != nil {
		t.Error(err)
	}
	var e Error
	if err := Decode(TypeError, files["Error.v3_refuses_heartbeat"], &e); err != nil {
		t.Fatal(err)
	}
	if !HeartbeatRefused(&RemoteError{Message: e.Message}) {
		t.Errorf("the v3 refusal %q is not recognised", e.Message)
	}
	for _, other := range []string{"busy", "setup_refused", "auth_refused"} {
		_, p := recorded(t, "Error."+other)
		var e Error
		if Decode(TypeError, p, &e) != nil || HeartbeatRefused(&RemoteError{Message: e.Message}) {
			t.Errorf("Error.%s taken for a refusal of heartbeats", other)
		}
	}
	for name, want := range map[string]time.Duration{"RunClient.liveness_off": spec.LivenessOff, "RunClient.liveness_5s_TCP_RR": 5 * time.Second} {
		var m RunClient
		if err := Decode(TypeRunClient, files[name], &m); err != nil {
			t.Fatal(err)
		}
		if got, err := m.Test.ToSpec(); err != nil || got.Liveness != want {
			t.Errorf("%s reads as liveness %v (%v)", name, got.Liveness, err)
		}
		if !strings.Contains(string(files[name]), `"Liveness":`) {
			t.Errorf("%s does not carry Liveness", name)
		}
	}
	// A default test carries no Liveness: a v3 daemon reads it.
	d := spec.Default(spec.TCPRR)
	if b := mustJSON(RunClient{Test: TestSpecFrom(&d)}); strings.Contains(string(b), "Liveness") {
		t.Errorf("a default test carries Liveness: %s", b)
	}

	// The server checks the period it is asked for.
	for _, c := range []struct {
		ns int64
		ok bool
	}{{0, true}, {int64(MinHeartbeat), true}, {int64(MaxHeartbeat), true}, {1, false}, {-1, false}, {int64(MaxHeartbeat) + 1, false}} {
		p := mustJSON(Setup{Test: "TCP_RR", HeartbeatNs: c.ns})
		if err := Decode(TypeSetup, p, &Setup{}); (err == nil) != c.ok {
			t.Errorf("heartbeat_ns %d: %v", c.ns, err)
		}
	}
	var bad RunClient
	if err := Decode(TypeRunClient, []byte(`{"spec":{"Workload":1,"Liveness":-2}}`), &bad); err == nil || !strings.Contains(err.Error(), "Liveness") {
		t.Errorf("Liveness -2: %v", err)
	}
}
