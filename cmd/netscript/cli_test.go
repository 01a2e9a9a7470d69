package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScriptErrors: a syntax error shows file:line:col, the offending line
// and a caret; a runtime error deep in the script shows the backtrace; a
// failed builtin names the builtin, the option and the cause.
func TestScriptErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	syntaxErr := write("syntax.star", "x = 1\nr = tcp_rr(duration = 1\n")
	deep := write("deep.star", "def f():\n    return tcp_rr(transactions=5, nodelay=1)\n\ndef g():\n    return f()\n\ng()\n")
	undefined := write("undef.star", "x = 1\nprint(y)\n")
	cases := []struct {
		name  string
		args  []string
		lines []string // each must appear, in this order, one per line
	}{
		{"syntax error", []string{syntaxErr}, []string{
			"netscript: " + syntaxErr + ":3:1: got end of file, want ')'",
			"    r = tcp_rr(duration = 1",
			"                           ^"}},
		{"syntax error in -c", []string{"-c", "print(1))"}, []string{
			"netscript: <command-line>:1:9: unexpected ')'",
			"    print(1))",
			"            ^"}},
		{"undefined name", []string{undefined}, []string{
			"netscript: " + undefined + ":2:7: undefined: y",
			"    print(y)",
			"          ^"}},
		{"runtime error in a function", []string{deep}, []string{
			"netscript: Traceback (most recent call last):",
			deep + ":7:2: in <toplevel>",
			deep + ":5:13: in g",
			deep + ":2:18: in f",
			"Error: tcp_rr: nodelay: want True or False, got int"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := netscript(t, 20*time.Second, c.args...)
			if r.code != exitScriptError {
				t.Errorf("exit %d, want %d", r.code, exitScriptError)
			}
			got := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if len(got) != len(c.lines) {
				t.Fatalf("stderr has %d lines, want %d:\n%s", len(got), len(c.lines), r.stderr)
			}
			for i, want := range c.lines {
				if strings.TrimSpace(got[i]) != strings.TrimSpace(want) || !strings.HasSuffix(got[i], strings.TrimLeft(want, " ")) {
					t.Errorf("line %d:\n got  %q\n want %q", i+1, got[i], want)
				}
			}
		})
	}
}

// TestLoad: load() resolves relative to the loading file wherever netscript
// runs from, and a cycle is reported with the file that closes it.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
	os.WriteFile(filepath.Join(dir, "main.star"), []byte("load(\"lib/sizes.star\", \"sizes\")\nprint(sizes)\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "sizes.star"), []byte("load(\"base.star\", \"one\")\nsizes = [one, 64]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "base.star"), []byte("one = 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.star"), []byte("load(\"b.star\", \"x\")\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.star"), []byte("load(\"a.star\", \"y\")\nx = 1\n"), 0o644)

	r := netscript(t, 20*time.Second, filepath.Join(dir, "main.star"))
	if r.code != 0 || strings.TrimSpace(r.stdout) != "[1, 64]" {
		t.Errorf("nested load: %+v", r)
	}
	r = netscript(t, 20*time.Second, filepath.Join(dir, "a.star"))
	a, b := filepath.Join(dir, "a.star"), filepath.Join(dir, "b.star")
	if r.code != exitScriptError || !strings.Contains(r.stderr, "load cycle: "+a+" loads "+b+" loads "+a) {
		t.Errorf("cycle: %+v", r)
	}
}

// TestInterrupt: SIGINT during a 30 s test stops it, the script ends with
// 130 and says what was measured before the interrupt; the record written
// with --record keeps that partial result. stderr is a terminal, so the
// live progress line says when the test is measuring: SIGINT comes then.
func TestInterrupt(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "run.json")
	p := startOnPTY(t, []string{"--record", rec, "-c", "print('started')\nr = tcp_rr(duration=30)\nprint('not reached')"})
	p.expect("started", 30*time.Second)
	p.expectRE(measuring, 60*time.Second)
	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGINT)
	out, err := p.wait(20 * time.Second) // a hang guard: the test is 30 s long
	t.Logf("SIGINT to exit: %v", time.Since(start))
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit: %v, want %d; the terminal shows:\n%s", err, exitInterrupted, visible(out))
	}
	for _, want := range []string{"netscript: interrupted at <command-line>:2:11 in tcp_rr", "netscript: measured before the interrupt: <result TCP_RR"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, visible(out))
		}
	}
	if strings.Contains(out, "not reached") {
		t.Error("the script went on after the interrupt")
	}
	var run struct {
		Status  string
		Results []struct {
			Partial bool
			Result  struct{ Transactions uint64 }
		}
	}
	b, _ := os.ReadFile(rec)
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("record: %v\n%s", err, b)
	}
	if run.Status != "interrupted" || len(run.Results) != 1 || !run.Results[0].Partial || run.Results[0].Result.Transactions == 0 {
		t.Errorf("record of the interrupted run: %+v", run)
	}
}

// TestRecordReplayShow: --record writes one JSON document with the script,
// its hash, args, env() and every result; show lays it out without running
// anything; replay runs it again and sets new figures beside old.
func TestRecordReplayShow(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "two.star")
	os.WriteFile(script, []byte("n = int(args['transactions'])\nfor b in [0, 2]:\n    print(tcp_rr(transactions=n, burst=b, brand='b%d' % b))\n"), 0o644)
	rec := filepath.Join(dir, "run.json")
	r := netscript(t, 30*time.Second, "--record", rec, script, "transactions=20")
	if r.code != 0 {
		t.Fatalf("recorded run: %+v", r)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Format string
		Script struct{ Name, Text, SHA256 string }
		Args   map[string]string
		Env    struct {
			Kernel, Netscript, Go string
			Sysctls               map[string]string
		}
		Start, End time.Time
		Status     string
		Results    []struct {
			Result struct {
				Test, Brand string
				Throughput  float64
			}
			ServerEnv *json.RawMessage `json:"server_env"`
		}
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	src, _ := os.ReadFile(script)
	if run.Format != "netscript-run/1" || run.Script.Name != script || run.Script.Text != string(src) || len(run.Script.SHA256) != 64 ||
		run.Args["transactions"] != "20" || run.Env.Kernel == "" || run.Env.Go == "" || run.Env.Sysctls["net.ipv4.tcp_rmem"] == "" ||
		!run.End.After(run.Start) || run.Status != "ok" || len(run.Results) != 2 || run.Results[1].Result.Brand != "b2" {
		t.Errorf("record:\n%s", b)
	}
	// Each result carries the env() its server sent over the control
	// protocol (here the embedded server's: the same machine).
	for i, res := range run.Results {
		var senv struct {
			Kernel    string
			Netscript string
			Sysctls   map[string]string
		}
		if res.ServerEnv == nil || json.Unmarshal(*res.ServerEnv, &senv) != nil ||
			senv.Kernel != run.Env.Kernel || senv.Sysctls["net.ipv4.tcp_rmem"] != run.Env.Sysctls["net.ipv4.tcp_rmem"] {
			t.Errorf("result %d: server env %s", i, func() string {
				if res.ServerEnv == nil {
					return "missing"
				}
				return string(*res.ServerEnv)
			}())
		}
	}

	r = netscript(t, 10*time.Second, "show", rec)
	if r.code != 0 || !strings.Contains(r.stdout, script) || !strings.Contains(r.stdout, "2 results") ||
		!strings.Contains(r.stdout, "Trans.") || !strings.Contains(r.stdout, "b2") {
		t.Errorf("show: %+v", r)
	}

	r = netscript(t, 30*time.Second, "--yes", "replay", rec, "transactions=10")
	if r.code != 0 || !strings.Contains(r.stdout, "replay of "+rec) || !strings.Contains(r.stdout, "Recorded") ||
		!strings.Contains(r.stdout, "args changed for this replay") || strings.Count(r.stdout, "<result TCP_RR") != 2 {
		t.Errorf("replay: %+v", r)
	}
}

// TestRecordOfTheLastRelease: a record written by the release before the
// workload registry shows and replays: its script runs again here, its
// four tests beside the recorded ones, and the change of build is named.
func TestRecordOfTheLastRelease(t *testing.T) {
	rec := "../../record/testdata/record-0.1.0-f0005e1.json"
	r := netscript(t, 10*time.Second, "show", rec)
	if r.code != 0 || !strings.Contains(r.stdout, "4 results") || !strings.Contains(r.stdout, "TCP_MAERTS") {
		t.Errorf("show: %+v", r)
	}
	r = netscript(t, 60*time.Second, "--yes", "replay", rec)
	if r.code != 0 || !strings.Contains(r.stdout, "replay of "+rec) || !strings.Contains(r.stdout, "Recorded") ||
		!strings.Contains(r.stdout, "TCP_CRR") || !strings.Contains(r.stdout, "f0005e1 ->") {
		t.Errorf("replay: %+v", r)
	}
}

// TestRecordBadInput: every mistake with records is one clear line and a
// non-zero exit, and an unwritable --record stops before anything runs (the
// 60 s test would show in the time taken, far beyond the bound, which is
// only there to catch that).
func TestRecordBadInput(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, []byte(`{"format": "netscript-run/1", "script": {"text": "print(1)", "sha256": "00"}}`), 0o644)
	notJSON := filepath.Join(dir, "notes.txt")
	os.WriteFile(notJSON, []byte("TCP_RR 17142.33\n"), 0o644)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"record into a missing directory", []string{"--record", filepath.Join(dir, "no", "run.json"), "-c", "tcp_rr(duration=60)"},
			[]string{"--record " + filepath.Join(dir, "no", "run.json") + ": no such file or directory"}},
		{"record onto a directory", []string{"--record", dir, "-c", "tcp_rr(duration=60)"},
			[]string{"--record " + dir + ": is a directory"}},
		{"record without a file", []string{"-c", "print(1)", "--record"}, []string{"--record needs a file name"}},
		{"replay of a corrupt record", []string{"replay", corrupt}, []string{"record " + corrupt + ": corrupt record: the script text does not match its sha256"}},
		{"show of something else", []string{"show", notJSON}, []string{"record " + notJSON + ": not a netscript record: invalid character 'T'"}},
		{"show of a missing record", []string{"show", filepath.Join(dir, "nope.json")}, []string{"nope.json: no such file"}},
		{"replay without a record", []string{"replay"}, []string{"replay needs a record file"}},
		{"replay with a bad pair", []string{"replay", corrupt, "duration"}, []string{"corrupt record"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			r := netscript(t, 30*time.Second, c.args...)
			oneLine(t, r, exitUsage, c.want...)
			if time.Since(start) > 20*time.Second {
				t.Errorf("took %v: did a test run before the check?", time.Since(start))
			}
		})
	}
}

// TestQuietAndNoTerminal: with stderr not a terminal nothing of the live
// progress shows, with or without --quiet.
func TestQuietAndNoTerminal(t *testing.T) {
	for _, args := range [][]string{
		{"-c", "tcp_rr(duration=0.5)"},
		{"--quiet", "-c", "tcp_rr(duration=0.5)"},
	} {
		r := netscript(t, 20*time.Second, args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// TestOutputBuiltins: table, csv, kv and json of to_dict from a script.
func TestOutputBuiltins(t *testing.T) {
	r := netscript(t, 30*time.Second, "-c", `
rs = [tcp_rr(transactions=50, request=s, brand="s%d" % s) for s in [1, 64]]
print(table(rs))
print(csv(rs, ["brand", "config.request", "transactions"]))
print(kv(rs[1], "brand,transactions"))
d = json.decode(json.encode(rs[0].to_dict()))
print(d["transactions"], d["latency"]["count"], d["config"]["request"])
print(env().kernel != "", env().sysctls["net.ipv4.tcp_rmem"] != "")
`)
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"Brand  Test    Request", "s64    TCP_RR       64",
		"brand,config.request,transactions\ns1,1,50\ns64,64,50",
		"BRAND=\"s64\"\nTRANSACTIONS=50",
		"50 50 1",
		"True True",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestScripts runs every script in scripts/ as a user would, with short
// durations, against the embedded server: each must succeed and print (a
// test that did no work on a busy machine is accepted as runBusy says).
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("../../scripts/*.star")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if needsCluster(t, f) {
				t.Skip("needs a cluster's agents; starlib/fleet's TestKubeMesh runs it")
			}
			r, _ := runBusy(t, f, "duration=0.1")
			if strings.TrimSpace(r.stdout) == "" {
				t.Errorf("printed nothing; stderr:\n%s", r.stderr)
			}
			src, _ := os.ReadFile(f)
			if !strings.HasPrefix(string(src), "# "+filepath.Base(f)+": ") {
				t.Errorf("does not start with a comment saying what question it answers")
			}
		})
	}
}

// needsCluster reports whether the script f says it needs a cluster's
// agents (scripts/kube_mesh.star), which its own test runs.
func needsCluster(t *testing.T, f string) bool {
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(src), "It needs a cluster's agents")
}

// TestInterruptAgainstServer: Ctrl-C during a test against a separate
// `netscript serve` ends the session cleanly: the server logs no session
// error and serves the next test. (SIGINT comes once the client's live
// progress line shows the test measuring.)
func TestInterruptAgainstServer(t *testing.T) {
	d := startDaemon(t, nil)
	p := startOnPTY(t, []string{"-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=30)", d.port)})
	p.expectRE(measuring, 60*time.Second)
	p.cmd.Process.Signal(syscall.SIGINT)
	if out, err := p.wait(20 * time.Second); err == nil || !strings.Contains(out, "measured before the interrupt") {
		t.Fatalf("interrupted client: %v\n%s", err, visible(out))
	}
	r := netscript(t, 20*time.Second, "-c", fmt.Sprintf("print(tcp_rr(host='127.0.0.1', port=%d, transactions=20).transactions > 0)", d.port))
	if r.code != 0 || strings.TrimSpace(r.stdout) != "True" {
		t.Errorf("next test: %+v", r)
	}
	d.cmd.Process.Kill()
	<-d.done
	for _, line := range strings.Split(strings.TrimSpace(d.stderr.String()), "\n")[1:] { // after "listening on"
		t.Errorf("server logged: %s", line)
	}
}

// TestInterruptInLoadedModule: Ctrl-C stops Starlark code running in a
// module being loaded, not only tests. The module says when it spins;
// SIGINT comes then.
func TestInterruptInLoadedModule(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "spin.star"), []byte("print('spinning')\nx = 0\nwhile True:\n    x += 1\n"), 0o644)
	main := filepath.Join(dir, "main.star")
	os.WriteFile(main, []byte("load(\"spin.star\", \"x\")\n"), 0o644)
	cmd := exec.Command(bin, main)
	var errb strings.Builder
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "spinning\n" {
		t.Fatalf("the module printed %q, %v", line, err)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
			t.Errorf("exit: %v; stderr:\n%s", err, errb.String())
		}
		t.Logf("SIGINT to exit: %v", time.Since(start))
	case <-time.After(20 * time.Second):
		t.Fatal("the module kept running after SIGINT")
	}
}
