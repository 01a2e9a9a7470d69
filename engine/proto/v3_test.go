package proto

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"netscript/engine/hist"
	"netscript/engine/result"
)

// v3Dir holds the messages recorded from the release of version 3 before
// TestSpec (testdata/v3/README.md says how they were made).
var v3Dir = filepath.Join("testdata", "v3")

// recorded reads testdata/v3/<Type>.<case>.json and returns its type.
func recorded(t testing.TB, name string) (Type, []byte) {
	t.Helper()
	p, err := os.ReadFile(filepath.Join(v3Dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	tn, _, _ := strings.Cut(name, ".")
	for typ, n := range typeNames {
		if n == tn {
			return typ, p
		}
	}
	t.Fatalf("%s: no message type %q", name, tn)
	return 0, nil
}

// recording names one file of testdata/v3.
type recording struct {
	typ  Type
	name string // "Setup.minimal"
}

// recordings reads every file of testdata/v3 (the fuzz targets' seeds).
func recordings(tb testing.TB) map[recording][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(v3Dir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no recordings in %s: %v", v3Dir, err)
	}
	out := map[recording][]byte{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		typ, p := recorded(tb, name)
		out[recording{typ, name}] = p
	}
	return out
}

func ip(n int) *int { return &n }

// TestRecordedV3 decodes every message recorded from the previous release
// into this release's type, strictly, checks what it holds, and encodes it
// again to the very bytes that release sent: each side understands the
// other, and a v3 peer of the previous release reads what this one writes.
func TestRecordedV3(t *testing.T) {
	// ready is what every recorded Ready has besides its port and sizes.
	ready := func(t *testing.T, m *Ready) {
		if m.Server.Version != "v3-recording" || m.Server.Env == nil || m.Server.Env.Netscript != "v3-recording" ||
			m.Server.Env.CPUs < 1 || m.Server.Env.Sysctls["net.ipv4.tcp_fastopen"] == "" || m.DataPort < 1024 || m.TCPFastOpen < 0 {
			t.Errorf("%+v (env %+v)", m, m.Server.Env)
		}
	}
	// flows2 checks a recorded run's Results of two flows of cpu_util.
	results := func(want Results) func(*testing.T, *Results) {
		return func(t *testing.T, m *Results) {
			if m.ElapsedNs < 1e8 || m.CPU == nil || m.CPU.NumCPU != 2 || m.CPU.ElapsedNs != m.ElapsedNs || len(m.Affinity) != 1 ||
				len(m.Peers) != 1 || m.Peers[0].Addr != "127.0.0.1" {
				t.Errorf("%+v", m)
			}
			if m.Accepts != want.Accepts || (want.Transactions > 0) != (m.Transactions > 0) ||
				(want.BytesSent > 0) != (m.BytesSent > 0) || (want.BytesReceived > 0) != (m.BytesReceived > 0) ||
				(want.SendCalls > 0) != (m.SendCalls > 0) || (want.RecvCalls > 0) != (m.RecvCalls > 0) || len(m.Conns) != len(want.Conns) {
				t.Errorf("%+v, want the counts of %+v", m, want)
			}
			var sum uint64
			for _, c := range m.Conns {
				sum += c.BytesSent + c.BytesReceived
				if !strings.HasPrefix(c.Peer, "127.0.0.1:") {
					t.Errorf("conn %+v", c)
				}
			}
			if len(m.Conns) > 0 && sum != m.BytesSent+m.BytesReceived {
				t.Errorf("conns add up to %d bytes, the test to %d", sum, m.BytesSent+m.BytesReceived)
			}
		}
	}
	two := []ConnCounts{{}, {}}
	// clientResult checks the result and histograms a ClientResult carries.
	clientResult := func(flows, transactions int, errText string) func(*testing.T, *ClientResult) {
		return func(t *testing.T, m *ClientResult) {
			var r result.Result
			if err := json.Unmarshal(m.Result, &r); err != nil {
				t.Fatal(err)
			}
			if r.Test != "TCP_RR" || len(r.Flows) != flows || len(m.FlowHists) != flows || m.Error != errText ||
				(transactions > 0 && r.Transactions != uint64(transactions)) {
				t.Errorf("result %s with %d flows, %d flow histograms, error %q", r.Test, len(r.Flows), len(m.FlowHists), m.Error)
			}
			h := hist.New()
			if err := h.UnmarshalBinary(m.Hist); err != nil || h.Count() != r.Transactions {
				t.Errorf("histogram of %d for %d transactions: %v", h.Count(), r.Transactions, err)
			}
		}
	}
	cases := map[string]any{ // case → func(*testing.T, *<message type>)
		"Error.auth_refused": func(t *testing.T, m *Error) { want(t, m.Message, "authentication failed") },
		"Error.setup_refused": func(t *testing.T, m *Error) {
			want(t, m.Message, "data port 80 exceeds this server's limit of 1024-65535 (netscript serve --data-ports)")
		},
		"Error.busy": func(t *testing.T, m *Error) { want(t, strings.HasPrefix(m.Message, "server busy: "), true) },

		"Setup.TCP_RR": func(t *testing.T, m *Setup) {
			want(t, *m, Setup{Test: "TCP_RR", Request: 64, Response: 128, Burst: 2, NoDelay: true, SendBuffer: 98304, RecvBuffer: 196608,
				DurationNs: 3e8, Brand: "v3-tcp_rr", CPUUtil: true, CPU: ip(1), Flows: 2, Sources: []string{"127.0.0.1"}})
		},
		"Setup.TCP_CRR": func(t *testing.T, m *Setup) {
			want(t, *m, Setup{Test: "TCP_CRR", Request: 32, Response: 1024, NoDelay: true, SendBuffer: 98304, RecvBuffer: 196608,
				DurationNs: 3e8, Brand: "v3-tcp_crr", FastOpen: true, CPUUtil: true, CPU: ip(1), Flows: 2, Sources: []string{"127.0.0.1"}})
		},
		"Setup.UDP_RR": func(t *testing.T, m *Setup) {
			want(t, *m, Setup{Test: "UDP_RR", Request: 100, Response: 200, Burst: 1, SendBuffer: 98304, RecvBuffer: 196608,
				DurationNs: 3e8, Brand: "v3-udp_rr", CPUUtil: true, CPU: ip(1), Flows: 2, Sources: []string{"127.0.0.1"}})
		},
		"Setup.TCP_STREAM": func(t *testing.T, m *Setup) {
			want(t, *m, Setup{Test: "TCP_STREAM", NoDelay: true, SendBuffer: 98304, RecvBuffer: 196608, RecvSize: 16384,
				DurationNs: 3e8, Brand: "v3-tcp_stream", CPUUtil: true, CPU: ip(1), Flows: 2, Sources: []string{"127.0.0.1"}})
		},
		"Setup.TCP_MAERTS": func(t *testing.T, m *Setup) {
			want(t, *m, Setup{Test: "TCP_MAERTS", NoDelay: true, SendBuffer: 98304, RecvBuffer: 196608, SendSize: 4096, Bytes: 1 << 20,
				Rate: 2000, Brand: "v3-tcp_maerts", CPUUtil: true, CPU: ip(1), Flows: 2, Sources: []string{"127.0.0.1"}})
		},
		"Setup.UDP_STREAM": func(t *testing.T, m *Setup) {
			want(t, *m, Setup{Test: "UDP_STREAM", SendBuffer: 98304, RecvBuffer: 196608, RecvSize: 65507,
				DurationNs: 3e8, Brand: "v3-udp_stream", CPUUtil: true, CPU: ip(1), Flows: 2, Sources: []string{"127.0.0.1"}})
		},
		"Setup.minimal": func(t *testing.T, m *Setup) { want(t, *m, Setup{Test: "TCP_RR"}) },
		"Setup.open": func(t *testing.T, m *Setup) {
			want(t, *m, Setup{Test: "TCP_RR", Request: 1, Response: 1, DurationNs: 1e8})
		},
		"Setup.setup_refused": func(t *testing.T, m *Setup) { want(t, m.DataPort, 80) },
		"Setup.data_ports": func(t *testing.T, m *Setup) {
			want(t, *m, Setup{Test: "TCP_CRR", Request: 1, Response: 1, Transactions: 5000, Flows: 3,
				DataPorts: []int{40000, 40000, 40001}, Sources: []string{"198.18.1.7", "198.18.1.8"}})
		},

		"Ready.TCP_RR":     func(t *testing.T, m *Ready) { ready(t, m); want(t, [2]int{m.SendSize, m.RecvSize}, [2]int{0, 0}) },
		"Ready.TCP_CRR":    func(t *testing.T, m *Ready) { ready(t, m); want(t, [2]int{m.SendSize, m.RecvSize}, [2]int{0, 0}) },
		"Ready.UDP_RR":     func(t *testing.T, m *Ready) { ready(t, m); want(t, [2]int{m.SendSize, m.RecvSize}, [2]int{0, 0}) },
		"Ready.TCP_STREAM": func(t *testing.T, m *Ready) { ready(t, m); want(t, [2]int{m.SendSize, m.RecvSize}, [2]int{0, 16384}) },
		"Ready.TCP_MAERTS": func(t *testing.T, m *Ready) { ready(t, m); want(t, [2]int{m.SendSize, m.RecvSize}, [2]int{4096, 0}) },
		"Ready.UDP_STREAM": func(t *testing.T, m *Ready) { ready(t, m); want(t, [2]int{m.SendSize, m.RecvSize}, [2]int{0, 65507}) },
		"Ready.open": func(t *testing.T, m *Ready) {
			ready(t, m)
			if m.Buffers.Send < 1 || m.Buffers.Recv < 1 || m.Server.Kernel == "" {
				t.Errorf("%+v", m)
			}
		},

		"Start.TCP_RR":   func(t *testing.T, m *Start) {},
		"Started.TCP_RR": func(t *testing.T, m *Started) {},
		"Stop.TCP_RR":    func(t *testing.T, m *Stop) {},

		"Results.TCP_RR":     results(Results{Transactions: 1, BytesSent: 1, BytesReceived: 1, Accepts: 2, Conns: two}),
		"Results.TCP_CRR":    results(Results{Transactions: 1, BytesSent: 1, BytesReceived: 1, Accepts: 300}),
		"Results.UDP_RR":     results(Results{Transactions: 1, BytesSent: 1, BytesReceived: 1}),
		"Results.TCP_STREAM": results(Results{BytesReceived: 1, Accepts: 2, RecvCalls: 1, Conns: two}),
		"Results.TCP_MAERTS": results(Results{BytesSent: 1 << 21, Accepts: 2, SendCalls: 1, Conns: two}),
		"Results.UDP_STREAM": results(Results{BytesReceived: 1, RecvCalls: 1}),
		"Results.open": func(t *testing.T, m *Results) {
			if m.Transactions == 0 || m.Accepts != 1 || m.CPU != nil || len(m.Conns) != 1 || m.Conns[0].Transactions != m.Transactions {
				t.Errorf("%+v", m)
			}
		},
		"Results.zero": func(t *testing.T, m *Results) { want(t, *m, Results{}) },
		"Results.every_field": func(t *testing.T, m *Results) {
			want(t, *m, Results{
				Transactions: 12345, BytesSent: 67890, BytesReceived: 13579, Accepts: 3, ElapsedNs: 1000123456,
				Errors: map[string]uint64{"ECONNRESET": 2, "EPIPE": 1}, Peers: []Peer{{Addr: "127.0.0.1", Count: 2}, {Addr: "::1", Count: 1}},
				PeersMore: true, SendCalls: 12000, RecvCalls: 12001, FastOpenAccepted: 3,
				CPU:      &CPUReport{Util: 12.5, NumCPU: 2, ThreadNs: 250000000, ElapsedNs: 1000000000},
				Affinity: []int{0, 1},
				Conns: []ConnCounts{
					{Peer: "127.0.0.1:40001", Transactions: 6000, BytesSent: 30000, BytesReceived: 7000, SendCalls: 6000, RecvCalls: 6001},
					{Peer: "[::1]:40002", Transactions: 6345},
				},
			})
		},

		"RunClient.every_field": func(t *testing.T, m *RunClient) { want(t, m.Test, everyField) },
		"RunClient.inet_udp_stream": func(t *testing.T, m *RunClient) {
			w := everyField
			w.Workload, w.Family = 6, FamilyInet
			want(t, m.Test, w)
		},
		"RunClient.remote": func(t *testing.T, m *RunClient) {
			w := defaultTestSpec(1)
			w.Host, w.Port, w.DurationNs, w.Flows = "127.0.0.1", m.Test.Port, 3e8, 2
			want(t, m.Test, w)
		},
		"RunClient.default_TCP_RR":     func(t *testing.T, m *RunClient) { want(t, m.Test, defaultTestSpec(1)) },
		"RunClient.default_TCP_CRR":    func(t *testing.T, m *RunClient) { want(t, m.Test, defaultTestSpec(2)) },
		"RunClient.default_UDP_RR":     func(t *testing.T, m *RunClient) { want(t, m.Test, defaultTestSpec(3)) },
		"RunClient.default_TCP_STREAM": func(t *testing.T, m *RunClient) { want(t, m.Test, defaultTestSpec(4)) },
		"RunClient.default_TCP_MAERTS": func(t *testing.T, m *RunClient) { want(t, m.Test, defaultTestSpec(5)) },
		"RunClient.default_UDP_STREAM": func(t *testing.T, m *RunClient) { want(t, m.Test, defaultTestSpec(6)) },

		"ClientReady.remote": func(t *testing.T, m *ClientReady) {},
		"Sync.remote":        func(t *testing.T, m *Sync) { want(t, m.Seq, 0) },
		"Sync.seq_7":         func(t *testing.T, m *Sync) { want(t, m.Seq, 7) },
		"Go.remote":          func(t *testing.T, m *Go) { want(t, m.DelayNs > 0, true) },
		"Go.zero":            func(t *testing.T, m *Go) { want(t, m.DelayNs, int64(0)) },

		"ClientResult.remote":           clientResult(2, 0, ""),
		"ClientResult.tcp_rr_local_run": clientResult(2, 0, ""),
		"ClientResult.handmade_error":   clientResult(2, 1000, "tcp_rr: the server closed the connection"),
	}

	files, err := filepath.Glob(filepath.Join(v3Dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	for name := range cases {
		if !slices.Contains(names, name) {
			t.Errorf("%s: no such recording", name)
		}
	}
	seen := map[Type]bool{}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			check, ok := cases[name]
			if !ok {
				t.Fatal("a recording without a case")
			}
			typ, p := recorded(t, name)
			seen[typ] = true
			v := messageFor(typ)
			if err := Decode(typ, p, v); err != nil {
				t.Fatal(err)
			}
			fn := reflect.ValueOf(check)
			if fn.Type().In(1) != reflect.TypeOf(v) {
				t.Fatalf("the case checks a %v, the recording is a %T", fn.Type().In(1), v)
			}
			fn.Call([]reflect.Value{reflect.ValueOf(t), reflect.ValueOf(v)})
			b, err := AppendFrame(nil, typ, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := b[5:]; !bytes.Equal(got, p) {
				t.Errorf("encodes to\n%s\nthe recording is\n%s", got, p)
			}
		})
	}
	for typ := range typeNames {
		// Heartbeat came after v3 (testdata/live); Hello and Welcome, the
		// handshake of v4, carry Noise's binary messages, not JSON
		// (auth_test.go).
		if !seen[typ] && typ != TypeHeartbeat && typ != TypeHello && typ != TypeWelcome {
			t.Errorf("no recording of %s", typ)
		}
	}
}

// want fails t unless got is want.
func want[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// everyField is RunClient.every_field: every field set.
var everyField = TestSpec{
	Workload: 2, Host: "198.18.0.2", Port: 12867, DurationNs: 3e9, Transactions: 1000, Request: 10, Response: 20,
	Burst: 3, NoDelay: true, Local: "198.18.1.7", LocalPort: 4000, DataPort: 40000, Family: FamilyInet6,
	Brand: "every-field", TimeoutNs: 25e7, ConnectTimeoutNs: 2e9, SendSize: 8192, RecvSize: 16384, Bytes: 1 << 20,
	FastOpen: true, CPUUtil: true, SendBuffer: 65536, RecvBuffer: 131072, RemoteSendBuffer: 98304, RemoteRecvBuffer: 196608,
	CPU: ip(1), RemoteCPU: ip(0), IntervalNs: 5e8, Rate: 1234.5, NoControl: true, Flows: 3,
	Locals: []string{"198.18.1.7", "198.18.1.8", "198.18.1.9"}, LocalPorts: []int{4001, 4002, 4003},
	DataPorts: []int{40001, 40002, 40003}, LocalPortRange: &PortRange{Lo: 5000, Hi: 5999}, Client: "198.18.0.9:12866",
}

// defaultTestSpec is spec.Default of the workload with code w, as the
// previous release sent it.
func defaultTestSpec(w int) TestSpec {
	return TestSpec{Workload: w, Port: 12866, DurationNs: 1e10, Request: 1, Response: 1, TimeoutNs: 1e9, ConnectTimeoutNs: 5e9, Flows: 1}
}
