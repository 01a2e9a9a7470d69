package starlib

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/result"
)

// update rewrites the golden files of formatted output:
//
//	go test ./starlib -run Golden -update
var update = flag.Bool("update", false, "rewrite testdata/golden files with the output the code gives now")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// fixedResults are results as tests produce them, with figures fixed so
// the formatted output does not change from run to run.
func fixedResults() starlark.StringDict {
	rr := func(test string, req, resp, burst int, tput, p50, p99 float64, brand string) *Record {
		return NewResult(&result.Result{
			Test: test, Brand: brand, Throughput: tput, Units: result.UnitsTrans, Elapsed: 2,
			Transactions: uint64(tput * 2), BytesSent: uint64(tput*2) * uint64(req), BytesReceived: uint64(tput*2) * uint64(resp),
			Latency:      &result.Latency{Count: uint64(tput * 2), Min: p50 / 2, Mean: (p50 + p99) / 2, Stddev: 3.25, P50: p50, P90: (p50 + p99) / 2, P99: p99, P999: p99 * 2, Max: p99 * 10},
			Errors:       map[string]uint64{},
			Config:       result.Config{Family: "inet", Duration: 2, Request: req, Response: resp, Burst: burst, LocalSendBuffer: 16384, LocalRecvBuffer: 131072},
			LocalAddress: "127.0.0.1", RemoteAddress: "127.0.0.1",
			Remote: &result.Remote{Transactions: uint64(tput * 2), Peers: []string{"127.0.0.1"}},
		})
	}
	lossy := rr("UDP_RR", 64, 64, 8, 101234.5, 70.25, 180.5, "")
	lossy.Value().(*result.Result).Errors = map[string]uint64{"timeout": 3}
	f := func(x float64) *float64 { return &x }
	u := func(x uint64) *uint64 { return &x }
	i := func(x int64) *int64 { return &x }
	withCPU := rr("TCP_RR", 1, 1, 0, 87456.11, 11.5, 40.0, "")
	cpu := withCPU.Value().(*result.Result)
	cpu.LocalCPU, cpu.RemoteCPU, cpu.LocalSD, cpu.RemoteSD, cpu.SDUnits = f(60.94), f(58.5), f(13.935), f(13.378), "usec/Tran"
	stream := func(test string, send int, tput float64, udp *result.UDP) *Record {
		return NewResult(&result.Result{Test: test, Throughput: tput, Units: result.UnitsBits, Elapsed: 2,
			BytesSent: uint64(tput * 2e6 / 8), Errors: map[string]uint64{}, UDP: udp,
			Config: result.Config{Duration: 2, SendSize: send, RecvSize: 131072, LocalSendBuffer: 16384, RemoteRecvBuffer: 131072}})
	}
	return starlark.StringDict{
		"cpu": withCPU,
		"streams": starlark.NewList([]starlark.Value{
			stream("UDP_STREAM", 1400, 6735.05, &result.UDP{Sent: 1241849, Received: u(1203191), Lost: i(38658), LossPct: f(3.113)}),
			stream("TCP_STREAM", 16384, 12945.85, nil),
		}),
		"rr": starlark.NewList([]starlark.Value{
			rr("TCP_RR", 1, 1, 0, 17142.33, 55.5, 106.0, ""),
			rr("TCP_RR", 128, 4096, 0, 12339.88, 77.0, 140.25, ""),
			rr("TCP_RR", 1, 1, 8, 274123.25, 29.75, 75.5, ""),
		}),
		"branded": starlark.NewList([]starlark.Value{
			rr("TCP_CRR", 128, 4096, 0, 13608.01, 70.5, 0.0625, "before"),
			rr("TCP_CRR", 128, 4096, 0, 17009.08, 55.0, 120.0, "after, with fastopen"),
		}),
		"mixed": starlark.NewList([]starlark.Value{
			rr("TCP_RR", 1, 1, 0, 17142.33, 55.5, 106.0, ""),
			rr("TCP_CRR", 1, 1, 0, 9000.5, 100.0, 200.0, ""),
			lossy,
		}),
		"one": rr("TCP_RR", 1, 1, 0, 17142.33, 55.5, 106.0, `say "hi" $HOME`),
	}
}

// TestOutputGolden formats fixed results with table(), csv() and kv(),
// with default and chosen fields, and compares with the golden files.
func TestOutputGolden(t *testing.T) {
	cases := []struct {
		file, code string
	}{
		// The default RR columns fit 80 characters, numbers right-aligned.
		{"table_rr.txt", `table(rr)`},
		// CRR has no burst column; a brand column appears when one is set.
		{"table_crr_brand.txt", `table(branded)`},
		// Several kinds: the common columns, units, and errors when any.
		{"table_mixed.txt", `table(mixed)`},
		// Chosen fields, dotted, a dict field and one missing from a dict.
		{"table_fields.txt", `table(mixed, ["test", "remote.transactions", "errors", "errors.timeout", "latency.p999"])`},
		// What was not measured is "-": a field under None (no fastopen=),
		// a key a dict lacks.
		{"table_unmeasured.txt", `table(mixed, ["test", "fastopen.accepted", "errors.timeout"])`},
		// Fields as one comma-separated string, netperf selector style.
		{"table_string_fields.txt", `table(rr, "throughput, latency.mean")`},
		// Too wide for a mail: a second block that repeats the first column.
		{"table_wide.txt", `table(rr, ["test", "config.request", "config.response", "config.burst", "elapsed", "throughput", "transactions", "bytes_sent", "bytes_received", "latency.min", "latency.mean", "latency.p50", "latency.p99", "latency.max", "local_address"])`},
		// One result on its own is a table of one row.
		{"table_one.txt", `table(one)`},
		// A result as a plain dict (what a record holds) lays out the same.
		{"table_dict.txt", `table([r.to_dict() for r in rr])`},
		// Bulk tests: netperf's socket and message sizes, megabits, loss.
		{"table_streams.txt", `table(streams)`},
		{"csv_streams.txt", `csv(streams)`},
		// CPU figures join the defaults when measured (netperf -c -C).
		{"table_cpu.txt", `table(cpu)`},
		{"kv_cpu.txt", `kv(cpu)`},
		{"csv_rr.txt", `csv(rr)`},
		{"csv_fields.txt", `csv(branded, ["brand", "throughput", "latency.p99"])`},
		{"csv_mixed.txt", `csv(mixed)`},
		{"kv_rr.txt", `kv(one)`},
		{"kv_fields.txt", `kv(mixed[2], ["throughput", "units", "latency.p99", "errors", "errors.timeout", "config.nodelay"])`},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			th, _ := newTestThread(t)
			env := Predeclared()
			for k, v := range fixedResults() {
				env[k] = v
			}
			v, err := starlark.EvalOptions(FileOptions(), th, "golden", c.code, env)
			if err != nil {
				t.Fatal(err)
			}
			s, ok := starlark.AsString(v)
			if !ok {
				t.Fatalf("%s returned %s, not text", c.code, v.Type())
			}
			if strings.HasPrefix(c.file, "table") {
				for _, line := range strings.Split(s, "\n") {
					if len(line) > MailWidth {
						t.Errorf("line longer than %d: %q", MailWidth, line)
					}
				}
			}
			golden(t, c.file, s+"\n")
		})
	}
}

// TestOutputErrors: every mistake names the builtin and what is wrong, and
// an unknown field lists the valid ones.
func TestOutputErrors(t *testing.T) {
	cases := []struct{ code, want string }{
		{`table(rr, ["thruput"])`, "table: unknown field thruput: a result has brand, bytes_received, bytes_sent, config, discarded"},
		{`csv(rr, ["latency.p95"])`, "csv: unknown field latency.p95: latency has count, max, mean, min, p50, p90, p99, p999, stddev"},
		{`kv(one, ["latency"])`, "kv: field latency is a latency with fields count, max, mean, min, p50, p90, p99, p999, stddev; name one, such as latency.count"},
		{`kv(rr)`, "kv: takes one result, got a list of 3; use csv() for several"},
		{`kv(3)`, "kv: result must be a result (or a dict), got int"},
		{`table(3)`, "table: results must be a list of results, got int"},
		{`table([one, 3])`, "table: results[1] is a int, not a result"},
		{`table(rr, [1])`, "table: fields[0] must be a field name"},
		{`table(rr, 1)`, "table: fields must be a list of field names"},
		{`table(rr, [])`, "table: fields is empty"},
		{`csv(rr, "throughput,,units")`, "csv: fields has an empty name"},
		{`table()`, "table: missing argument for results"},
		{`env(1)`, "env: got 1 arguments"},
	}
	for _, c := range cases {
		th, _ := newTestThread(t)
		env := Predeclared()
		for k, v := range fixedResults() {
			env[k] = v
		}
		_, err := starlark.EvalOptions(FileOptions(), th, "bad", c.code, env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want %s", c.code, err, c.want)
		}
	}
}

// TestOutputEmpty: no results give no text rather than an error, so a
// loop that ran zero times still prints.
func TestOutputEmpty(t *testing.T) {
	th, _ := newTestThread(t)
	for _, code := range []string{`table([])`, `csv([])`} {
		v, err := starlark.EvalOptions(FileOptions(), th, "empty", code, Predeclared())
		if err != nil || v != starlark.String("") {
			t.Errorf("%s = %v, %v", code, v, err)
		}
	}
	v, err := starlark.EvalOptions(FileOptions(), th, "empty", `csv([], ["test", "throughput"])`, Predeclared())
	if err != nil || v != starlark.String("test,throughput") {
		t.Errorf("csv with fields and no rows = %v, %v", v, err)
	}
}
