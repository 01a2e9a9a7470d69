package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"netscript/engine/sock/socktest"
	"netscript/record"
)

// TestHostFlag: --host/--port and $NETSCRIPT_HOST/$NETSCRIPT_PORT aim
// every test that names no host at a daemon; flags win over the
// environment; a test that names host keeps it, and its default port.
func TestHostFlag(t *testing.T) {
	d := startDaemon(t, nil)
	refused := refusingPort(t)
	show := `r = tcp_rr(transactions=20); print(r.config.host, r.config.port, r.remote.transactions)`
	want := fmt.Sprintf("127.0.0.1 %d 20\n", d.port)
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"flags", nil, []string{"--host", "127.0.0.1", "--port", fmt.Sprint(d.port)}},
		{"host:port", nil, []string{fmt.Sprintf("--host=127.0.0.1:%d", d.port)}},
		{"environment", []string{"NETSCRIPT_HOST=127.0.0.1", fmt.Sprintf("NETSCRIPT_PORT=%d", d.port)}, nil},
		// The flags' host and port win, and $NETSCRIPT_PORT belongs to
		// $NETSCRIPT_HOST only.
		{"flags win", []string{"NETSCRIPT_HOST=127.0.0.2", fmt.Sprintf("NETSCRIPT_PORT=%d", refused)},
			[]string{"--host", fmt.Sprintf("127.0.0.1:%d", d.port)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := netscriptEnv(t, 60*time.Second, c.env, append(c.args, "-c", show)...)
			if r.code != 0 || r.stdout != want {
				t.Fatalf("exit %d, stdout %q, want %q; stderr:\n%s", r.code, r.stdout, want, r.stderr)
			}
			if !strings.Contains(r.stderr, fmt.Sprintf("tests that name no host go to 127.0.0.1 port %d", d.port)) {
				t.Errorf("stderr does not say where the tests go:\n%s", r.stderr)
			}
		})
	}
	// A test that names host keeps it, and without port= netscript's
	// default port rather than --port's.
	r := netscript(t, 60*time.Second, "-q", "--host", "127.0.0.1", "--port", fmt.Sprint(d.port),
		"-c", fmt.Sprintf(`tcp_rr(host="127.0.0.1", port=%d, transactions=5)`, refused))
	oneLine(t, r, exitScriptError, fmt.Sprintf("tcp_rr: dial 127.0.0.1:%d: connection refused", refused))
	r = netscript(t, 60*time.Second, "-q", "--host", fmt.Sprintf("127.0.0.1:%d", refused),
		"-c", fmt.Sprintf(`print(tcp_rr(host="127.0.0.1:%d", transactions=5).transactions)`, d.port))
	if r.code != 0 || r.stdout != "5\n" {
		t.Errorf("host= in the script: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestHostFlagRecord: --record keeps the target, and replay aims there
// again.
func TestHostFlagRecord(t *testing.T) {
	d := startDaemon(t, nil)
	rec := filepath.Join(t.TempDir(), "run.json")
	r := netscript(t, 60*time.Second, "-q", "--record", rec, "--host", fmt.Sprintf("127.0.0.1:%d", d.port), "-c", `tcp_rr(transactions=10)`)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	run, err := record.ReadRun(rec)
	if err != nil {
		t.Fatal(err)
	}
	if run.Target == nil || run.Target.Host != "127.0.0.1" || run.Target.Port != d.port || run.Target.From != "flags" || run.RunID == "" {
		t.Fatalf("recorded target %+v, run id %q", run.Target, run.RunID)
	}
	if !strings.Contains(run.Summary(), fmt.Sprintf("tests aimed at 127.0.0.1 port %d", d.port)) {
		t.Errorf("summary does not name the target:\n%s", run.Summary())
	}
	// The record's target is its author's choice, not the person's: allowed here.
	r = netscript(t, 60*time.Second, "--yes", "--allow-net=127.0.0.1", "replay", rec)
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("go to 127.0.0.1 port %d (netscript serve, from the record)", d.port)) {
		t.Errorf("replay: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestHostFlagBad: a bad --host, --port or --server is one line, before
// anything runs.
func TestHostFlagBad(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--host", "a b"}, `--host "a b": not an IP address or a host name`},
		{nil, []string{"--host", "300.1.1.1"}, `--host "300.1.1.1": not an IP address`},
		{nil, []string{"--host", "127.0.0.1:0"}, "the port must be in 1-65535"},
		{nil, []string{"--host", ":12866"}, "has a port but no address"},
		{nil, []string{"--host"}, "--host needs an address"},
		{nil, []string{"--host="}, "--host needs an address"},
		{nil, []string{"--host", "127.0.0.1", "--port", "0"}, "--port 0: want a port, 1-65535"},
		{nil, []string{"--host", "127.0.0.1", "--port", "x"}, "--port x: want a port"},
		{nil, []string{"--host", "127.0.0.1:1", "--port", "2"}, "names port 1 and --port 2 another"},
		{nil, []string{"--port", "5"}, "--port needs --host"},
		{nil, []string{"--server", "netserver"}, "--server needs --host"},
		{nil, []string{"--host", "127.0.0.1", "--server", "nets"}, "--server nets: want netscript"},
		{[]string{"NETSCRIPT_HOST=a/b"}, nil, `$NETSCRIPT_HOST "a/b": not an IP address or a host name`},
		{[]string{"NETSCRIPT_HOST=127.0.0.1", "NETSCRIPT_PORT=70000"}, nil, "$NETSCRIPT_PORT 70000: want a port"},
	} {
		r := netscriptEnv(t, 20*time.Second, c.env, append(c.args, "-c", `print("ran")`)...)
		oneLine(t, r, exitUsage, c.want)
		if r.stdout != "" {
			t.Errorf("%q: the script ran: %q", c.args, r.stdout)
		}
	}
}

// jsonLine is what TestJSONLines reads of each line.
type jsonLineRead struct {
	RunID   string          `json:"run_id"`
	Seq     int             `json:"seq"`
	Kind    string          `json:"kind"`
	Test    string          `json:"test"`
	Brand   string          `json:"brand"`
	Units   string          `json:"units"`
	Partial *bool           `json:"partial"`
	Result  json.RawMessage `json:"result"`
	Sample  *struct {
		T, Throughput, Interval float64
		// TCP tests: as iperf3's interval lines, retransmits and cwnd.
		Retransmits, Cwnd *uint64
	} `json:"sample"`
}

// readJSONLines parses every line of text, failing on one that is not a
// JSON object.
func readJSONLines(t *testing.T, text string) []jsonLineRead {
	t.Helper()
	var out []jsonLineRead
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l jsonLineRead
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", len(out)+1, err, sc.Text())
		}
		out = append(out, l)
	}
	return out
}

// TestJSONLines: --json-lines writes one object per finished test and per
// interim sample, each with the run's id, the result as r.to_dict() gives
// it; with -, on stdout, and print() goes to stderr.
func TestJSONLines(t *testing.T) {
	code := `a = tcp_rr(duration=1, interval=0.25, brand="a")
b = tcp_crr(transactions=30)
print("printed", a.transactions > 0)
json.encode(b.to_dict())`
	path := filepath.Join(t.TempDir(), "lines.json")
	r := netscript(t, 60*time.Second, "-q", "--json-lines", path, "-c", code)
	if r.code != 0 || r.stdout != "printed True\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check := func(lines []jsonLineRead) {
		t.Helper()
		var interim, results []jsonLineRead
		for i, l := range lines {
			if l.RunID == "" || l.RunID != lines[0].RunID || l.Seq != i+1 {
				t.Errorf("line %d: run id %q (first %q), seq %d", i+1, l.RunID, lines[0].RunID, l.Seq)
			}
			switch l.Kind {
			case "interim":
				interim = append(interim, l)
			case "result":
				results = append(results, l)
			default:
				t.Errorf("line %d: kind %q", i+1, l.Kind)
			}
		}
		if len(results) != 2 || results[0].Test != "TCP_RR" || results[0].Brand != "a" || results[1].Test != "TCP_CRR" {
			t.Fatalf("results %+v, want TCP_RR \"a\" then TCP_CRR", results)
		}
		var crr struct {
			Test         string                        `json:"test"`
			Transactions uint64                        `json:"transactions"`
			Config       struct{ Transactions uint64 } `json:"config"`
		}
		if err := json.Unmarshal(results[1].Result, &crr); err != nil || crr.Test != "TCP_CRR" || crr.Transactions != 30 || crr.Config.Transactions != 30 {
			t.Errorf("TCP_CRR result %s (%v)", results[1].Result, err)
		}
		if *results[0].Partial || *results[1].Partial {
			t.Errorf("a whole test marked partial")
		}
		// Every interim sample comes before its test's result, with units.
		if len(interim) < 2 {
			t.Fatalf("%d interim lines, want at least 2 for duration=1, interval=0.25", len(interim))
		}
		for _, l := range interim {
			if l.Test != "TCP_RR" || l.Brand != "a" || l.Units != "Trans/s" || l.Sample == nil || l.Sample.Interval <= 0 || l.Seq > results[0].Seq {
				t.Errorf("interim line %+v", l)
			} else if l.Sample.Retransmits == nil || l.Sample.Cwnd == nil || *l.Sample.Cwnd == 0 {
				t.Errorf("interim line of a TCP test without retransmits and cwnd: %+v", *l.Sample)
			}
		}
	}
	check(readJSONLines(t, string(b)))

	// To stdout: every line of stdout is JSON; print() went to stderr.
	r = netscript(t, 60*time.Second, "-q", "--json-lines", "-", "-c", code)
	if r.code != 0 || !strings.Contains(r.stderr, "printed True") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	check(readJSONLines(t, r.stdout))
}

// TestJSONLinesFailedTest: a test that fails before it measures anything
// still has its line, partial, with the error and no result.
func TestJSONLinesFailedTest(t *testing.T) {
	port := socktest.Reserve(t, false) // held, not listening: refused
	r := netscript(t, 60*time.Second, "--json-lines", "-", "-c",
		fmt.Sprintf(`tcp_rr(host="127.0.0.1", port=%d, duration=0.2, brand="gone")`, port))
	lines := readJSONLines(t, r.stdout)
	if r.code == 0 || len(lines) != 1 {
		t.Fatalf("exit %d, %d lines, stdout %q, stderr %q", r.code, len(lines), r.stdout, r.stderr)
	}
	l := lines[0]
	var e struct {
		Error string `json:"error"`
	}
	json.Unmarshal([]byte(r.stdout), &e)
	if l.Kind != "result" || l.Test != "TCP_RR" || l.Brand != "gone" || l.Partial == nil || !*l.Partial || l.Result != nil ||
		!strings.Contains(e.Error, "connection refused") {
		t.Errorf("line %+v, error %q", l, e.Error)
	}
}

// TestJSONLinesAndRecordApart: one file for both would be overwritten by
// the record at the end; it is refused before anything runs.
func TestJSONLinesAndRecordApart(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.json")
	r := netscript(t, 60*time.Second, "--record", p, "--json-lines", p, "-c", "print('ran')")
	if r.code != exitUsage || strings.Contains(r.stdout, "ran") || !strings.Contains(r.stderr, "each needs a file of its own") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestJSONLinesBad: an unwritable --json-lines path is one line before
// anything runs.
func TestJSONLinesBad(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--json-lines", filepath.Join(dir, "no", "such", "dir")},
		{"--json-lines", dir},
		{"--json-lines="},
	} {
		r := netscript(t, 20*time.Second, append(args, "-c", `print("ran")`)...)
		oneLine(t, r, exitUsage, "--json-lines")
		if r.stdout != "" {
			t.Errorf("%q: the script ran", args)
		}
	}
}

// TestServeFlagErrors: a mistyped flag or a bad value of serve is one
// line that points to --help, never Go's flag list or the internal
// --embedded-fd, and a bad --data is refused before anything listens.
func TestServeFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--lisen", "x"}, "unknown flag --lisen (did you mean --listen?); netscript serve --help lists the flags"},
		{[]string{"-lisen=x"}, "did you mean --listen?"},
		{[]string{"--max-dur", "5s"}, "did you mean --max-duration?"},
		{[]string{"--embedded", "3"}, "unknown flag --embedded; netscript serve --help"},
		{[]string{"--max-duration", "forever"}, "--max-duration forever: want a duration such as 30s, 5m, 1h30m"},
		{[]string{"--max-tests", "many"}, "--max-tests many: want a whole number"},
		{[]string{"--quiet=maybe"}, "--quiet maybe: want true or false"},
		{[]string{"--listen"}, "--listen needs a value"},
		{[]string{"--data", "tcp_rr"}, "--data tcp_rr: want WORKLOAD:PORT or WORKLOAD:ADDR:PORT"},
		{[]string{"--listen", "127.0.0.1:0", "--data", "nosuch:1"}, `--data nosuch:1: unknown workload "nosuch"`},
	} {
		r := netscript(t, 20*time.Second, append([]string{"serve"}, c.args...)...)
		oneLine(t, r, exitUsage, c.want)
		if strings.Contains(r.stderr, "listening on") || strings.Contains(r.stderr, "embedded-fd") {
			t.Errorf("serve %q: %s", c.args, r.stderr)
		}
	}
	r := netscript(t, 20*time.Second, "serve", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "  --listen value") || !strings.Contains(r.stdout, "  --max-duration duration") ||
		strings.Contains(r.stdout, "embedded-fd") || strings.Contains(r.stdout, "\n  -listen") {
		t.Errorf("serve --help: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestScriptsAimed runs every script in scripts/ with --host at a daemon:
// each succeeds, and every test it ran went to the daemon (the record
// says where each result's test went). A test that did no work on a busy
// machine is accepted as runBusy says, which says the machine was busy,
// not where the test went.
func TestScriptsAimed(t *testing.T) {
	d := startDaemon(t, nil)
	files, err := filepath.Glob("../../scripts/*.star")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if needsCluster(t, f) {
				t.Skip("needs a cluster's agents; starlib/fleet's TestKubeMesh runs it")
			}
			_, run := runBusy(t, "-q", "--host", fmt.Sprintf("127.0.0.1:%d", d.port), f, "duration=0.1")
			for i, rr := range run.Results {
				if c := rr.Result.Config; c.Host != "127.0.0.1" || c.Port != d.port {
					t.Errorf("result %d (%s) went to %s port %d, not the daemon's %d", i, rr.Result.Test, c.Host, c.Port, d.port)
				}
			}
		})
	}
}

// TestShowIgnoresTarget: show and report read a record and run nothing,
// so a $NETSCRIPT_HOST that does not resolve here does not stop them, and
// --host given to them is one line.
func TestShowIgnoresTarget(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "run.json")
	if r := netscript(t, 60*time.Second, "-q", "--record", rec, "-c", "tcp_rr(transactions=20)"); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	bad := []string{"NETSCRIPT_HOST=nosuch.invalid"}
	if r := netscriptEnv(t, 60*time.Second, bad, "show", rec); r.code != 0 || !strings.Contains(r.stdout, "1 results") {
		t.Errorf("show with a bad $NETSCRIPT_HOST: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if r := netscriptEnv(t, 60*time.Second, bad, "report", rec, "-o", html); r.code != 0 {
		t.Errorf("report with a bad $NETSCRIPT_HOST: exit %d, stderr %q", r.code, r.stderr)
	}
	r := netscript(t, 60*time.Second, "--host", "127.0.0.1", "show", rec)
	if r.code != exitUsage || !strings.Contains(r.stderr, "show runs nothing, so --record, --host") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("--host with show: exit %d, stderr %q", r.code, r.stderr)
	}
}
