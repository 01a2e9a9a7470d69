package record

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/sysinfo"
	"netscript/internal/startest"
	"netscript/internal/stoptest"
	"netscript/session"
	"netscript/starlib"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// TestRecorderSeesEveryResult: every test a script runs reaches
// session.Session.OnResult, including one cut short, which is marked partial.
func TestRecorderSeesEveryResult(t *testing.T) {
	th, env := startest.NewThread(t)
	var rec Recorder
	env.OnResult = rec.Add
	if _, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "rec.star",
		"tcp_rr(transactions=10)\nfor f in [tcp_crr, udp_rr]:\n    f(transactions=5, brand='loop')\n", starlib.Predeclared()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	thread.SetContext(th, ctx)
	env.Progress = &stoptest.OnWork{Cancel: cancel} // cut it once it has counted work
	start := time.Now()
	_, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "cut.star", "tcp_rr(duration=30)\n", starlib.Predeclared())
	if err == nil {
		t.Fatal("a cancelled test returned no error")
	}
	if took := time.Since(start); took > stoptest.HangGuard {
		t.Errorf("cancelled test took %v", took)
	}
	got := rec.Results()
	if len(got) != 4 {
		t.Fatalf("recorded %d results, want 4: %+v", len(got), got)
	}
	for i, want := range []string{"TCP_RR", "TCP_CRR", "UDP_RR", "TCP_RR"} {
		if got[i].Result.Test != want {
			t.Errorf("result %d is %s, want %s", i, got[i].Result.Test, want)
		}
	}
	if got[1].Result.Brand != "loop" || got[0].Partial {
		t.Errorf("whole results: %+v %+v", got[0], got[1])
	}
	if !got[3].Partial || got[3].Error == "" || got[3].Result.Transactions == 0 {
		t.Errorf("cut-short result: partial=%v error=%q transactions=%d", got[3].Partial, got[3].Error, got[3].Result.Transactions)
	}
}

// fixedRun is a record with fixed figures.
func fixedRun() *Run {
	sc := &session.Script{Name: "sweep.star", Src: []byte("print(table([tcp_rr()]))\n"), Args: map[string]string{"duration": "2"}}
	run := NewRun(sc, sysinfo.Info{Hostname: "box", OS: "linux", Arch: "amd64", Kernel: "6.1.0", CPUModel: "Test CPU", CPUs: 4,
		Sysctls: map[string]string{"net.ipv4.tcp_congestion_control": "cubic"}, Netscript: "0.1.0", Commit: "abc1234", Go: "go1.26.0"})
	run.Start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	run.End = run.Start.Add(6500 * time.Millisecond)
	for v := range startest.FixedResults()["mixed"].(*starlark.List).Elements() {
		res := *v.(*values.Record).Value().(*result.Result)
		run.Results = append(run.Results, RunResult{Result: &res})
	}
	cut := *run.Results[0].Result
	cut.Throughput, cut.Elapsed = 16000.5, 0.75
	run.Results = append(run.Results, RunResult{Result: &cut, Partial: true, Error: "interrupted"})
	return run
}

// TestRunRoundTrip: what Encode writes, DecodeRun reads back the same.
func TestRunRoundTrip(t *testing.T) {
	run := fixedRun()
	var b bytes.Buffer
	if err := run.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRun(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if back.Script != run.Script || back.Args["duration"] != "2" || !back.Start.Equal(run.Start) ||
		len(back.Results) != len(run.Results) || back.Results[1].Result.Latency.P99 != run.Results[1].Result.Latency.P99 ||
		!back.Results[3].Partial || back.Env.Sysctls["net.ipv4.tcp_congestion_control"] != "cubic" {
		t.Errorf("round trip changed the run:\n%s", b.String())
	}
	if !strings.Contains(b.String(), `"server_env": null`) {
		t.Errorf("no server_env place in each result:\n%s", b.String())
	}
}

// TestDecodeRunRefuses: each kind of damage is one clear error.
func TestDecodeRunRefuses(t *testing.T) {
	var good bytes.Buffer
	fixedRun().Encode(&good)
	var doc map[string]any
	json.Unmarshal(good.Bytes(), &doc)
	edit := func(f func(map[string]any)) string {
		var d map[string]any
		json.Unmarshal(good.Bytes(), &d)
		f(d)
		b, _ := json.Marshal(d)
		return string(b)
	}
	cases := []struct{ name, doc, want string }{
		{"not JSON", "hello", "not a netscript record: invalid character 'h' looking for beginning of value at byte 1"},
		{"truncated", good.String()[:200], "not a netscript record: unexpected EOF"},
		{"trailing text", good.String() + "x", "text after the JSON document"},
		{"other JSON", `{"a": 1}`, `no "format": "netscript-run/1" field`},
		{"other format", edit(func(d map[string]any) { d["format"] = "netscript-run/9" }), `record format "netscript-run/9", this netscript reads "netscript-run/1"`},
		{"edited script", edit(func(d map[string]any) { d["script"].(map[string]any)["text"] = "print(2)\n" }), "the script text does not match its sha256"},
		{"no script", edit(func(d map[string]any) { delete(d, "script") }), "corrupt record: no script"},
		{"result without test", edit(func(d map[string]any) { d["results"] = []any{map[string]any{"result": nil}} }), "corrupt record: results[0] has no test"},
		{"wrong type", edit(func(d map[string]any) { d["results"] = "many" }), "not a netscript record: json: cannot unmarshal string"},
	}
	for _, c := range cases {
		_, err := DecodeRun([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is more than one line: %q", c.name, err)
		}
	}
	if _, err := ReadRun("testdata/no-such-record.json"); err == nil || err.Error() != "record testdata/no-such-record.json: no such file" {
		t.Errorf("missing file: %v", err)
	}
}

// TestRunGolden: what `netscript show` and `netscript replay` print.
func TestRunGolden(t *testing.T) {
	run := fixedRun()
	tables, err := run.Tables()
	if err != nil {
		t.Fatal(err)
	}
	startest.Golden(t, "show.txt", run.Summary()+"\n\n"+tables+"\n")

	now := fixedRun().Results[:3]
	faster := *now[0].Result
	faster.Throughput *= 1.1
	now[0].Result = &faster
	rt, err := ReplayTable(run.Results, now)
	if err != nil {
		t.Fatal(err)
	}
	startest.Golden(t, "replay.txt", rt+"\n")
}

func TestEnvChanges(t *testing.T) {
	was := sysinfo.Info{Kernel: "6.1.0", CPUs: 4, Sysctls: map[string]string{"net.ipv4.tcp_congestion_control": "cubic", "net.ipv4.tcp_fastopen": "1"}, Netscript: "0.1.0", Commit: "a", Go: "go1.26.0"}
	cases := []struct {
		name string
		edit func(*sysinfo.Info)
		want []string
	}{
		{"same", func(*sysinfo.Info) {}, nil},
		{"kernel and a sysctl", func(i *sysinfo.Info) {
			i.Kernel = "6.18.0"
			i.Sysctls = map[string]string{"net.ipv4.tcp_congestion_control": "bbr", "net.ipv4.tcp_fastopen": "1"}
		}, []string{"kernel: 6.1.0 -> 6.18.0", "net.ipv4.tcp_congestion_control: cubic -> bbr"}},
		{"sysctl gone", func(i *sysinfo.Info) { i.Sysctls = map[string]string{"net.ipv4.tcp_congestion_control": "cubic"} },
			[]string{"net.ipv4.tcp_fastopen: 1 -> (none)"}},
		{"build", func(i *sysinfo.Info) { i.Commit = "b" }, []string{"netscript: 0.1.0 a -> 0.1.0 b"}},
		{"cgo build", func(i *sysinfo.Info) { i.Cgo = true }, []string{"netscript: 0.1.0 a -> 0.1.0 a cgo"}},
	}
	for _, c := range cases {
		now := was
		c.edit(&now)
		got := EnvChanges(was, now)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestRecordOfTheLastRelease: a record written by the release before the
// workload registry (netscript 0.1.0, commit f0005e1: a TCP_RR, a TCP_CRR
// of two flows, a UDP_STREAM and a TCP_MAERTS) still reads, lays out as
// tables and compares with new results of the same tests.
func TestRecordOfTheLastRelease(t *testing.T) {
	run, err := ReadRun("testdata/record-0.1.0-f0005e1.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != 4 || run.Env.Commit != "f0005e1" {
		t.Fatalf("%d results, commit %q", len(run.Results), run.Env.Commit)
	}
	tables, err := run.Tables()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TCP_RR", "TCP_CRR", "UDP_STREAM", "TCP_MAERTS", "Flows", "10^6bits/s"} {
		if !strings.Contains(tables, want) {
			t.Errorf("the tables lack %q:\n%s", want, tables)
		}
	}
	if rr := run.Results[0].Result; rr.Hist != nil || rr.Latency == nil {
		t.Errorf("a record without histograms reads with one, or without latency: %+v", rr)
	}
	if crr := run.Results[1].Result; crr.Config.Flows != 2 || len(crr.Flows) != 2 || crr.Latency == nil {
		t.Errorf("the TCP_CRR result reads as %+v", crr)
	}
	if _, err := ReplayTable(run.Results, run.Results); err != nil {
		t.Errorf("replay table: %v", err)
	}
}
