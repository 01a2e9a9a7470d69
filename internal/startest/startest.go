// Package startest holds what the tests of starlib's packages share: a
// Starlark thread over a fresh session, results with fixed figures for
// golden files, and the golden-file check with its -update flag.
package startest

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"

	"netscript/engine/result"
	"netscript/session"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// NewThread returns a thread over a fresh session whose output is
// discarded, and closes the session when the test ends.
func NewThread(t testing.TB) (*starlark.Thread, *session.Session) {
	t.Helper()
	env := session.New("test")
	env.Stdout, env.Stderr = io.Discard, io.Discard
	t.Cleanup(func() { env.Close() })
	th := thread.New(t.Name(), env, context.Background())
	starlarktest.SetReporter(th, t)
	return th, env
}

// The flag -update rewrites the golden files of formatted output:
//
//	go test ./starlib/output ./record -run Golden -update
//
// A package whose own tests define -update (starlib/plot's charts) shares
// that flag: both rewrite their files.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite testdata/golden files with the output the code gives now")
	}
}

// updating reports whether -update was given.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Golden compares got with testdata/golden/name of the package under test,
// or rewrites that file with -update.
func Golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if updating() {
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

// FixedResults are results as tests produce them, with figures fixed so
// the formatted output does not change from run to run.
func FixedResults() starlark.StringDict {
	rr := func(test string, req, resp, burst int, tput, p50, p99 float64, brand string) *values.Record {
		return values.NewResult(&result.Result{
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
	stream := func(test string, send int, tput float64, udp *result.UDP) *values.Record {
		return values.NewResult(&result.Result{Test: test, Throughput: tput, Units: result.UnitsBits, Elapsed: 2,
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
		"cc": starlark.NewList([]starlark.Value{
			rr("TCP_CC", 0, 0, 0, 24012.5, 38.25, 95.5, ""),
			rr("TCP_CC", 0, 0, 0, 23511.75, 39.0, 99.25, ""),
		}),
	}
}
