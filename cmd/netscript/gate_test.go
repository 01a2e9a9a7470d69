package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"netscript/engine/sock/socktest"
)

// junitCounts parses a JUnit file with a real consumer, Debian's
// python3-junitparser (installed by .ci/run), and returns its counts and
// each case's name with its verdict.
func junitCounts(t *testing.T, path string) string {
	t.Helper()
	py := "/usr/bin/python3"
	prog := `import sys
from junitparser import JUnitXml
x = JUnitXml.fromfile(sys.argv[1])
print(x.tests, x.failures, x.errors, " ".join("%s=%s" % (c.name, "pass" if c.is_passed else "fail") for c in x))`
	out, err := exec.Command(py, "-c", prog, path).CombinedOutput()
	if err != nil {
		t.Fatalf("junitparser on %s: %v\n%s", path, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestCheckExitStatus runs the built binary on gates that pass, fail a
// check, stop with an error and are mistyped, and holds each exit status
// (docs/ci.md), the check lines, the JUnit report as junitparser reads it,
// the JSON lines and the record.
func TestCheckExitStatus(t *testing.T) {
	dir := t.TempDir()
	closed := socktest.Reserve(t, false) // bound, never listening: refused
	cases := []struct {
		name  string
		src   string
		args  []string
		code  int
		junit string // junitparser's counts and cases; "" for no report
		lines []string
	}{
		{"pass", `r = tcp_rr(transactions=200)
check("txns", r.transactions, at_least=200, at_most=200, result=r)
check("ran", r)
check("cond", 2 > 1)`, nil, exitOK, "3 0 0 txns=pass ran=pass cond=pass",
			[]string{"check PASS txns: 200 (wanted >= 200 and <= 200)", "check PASS ran: "}},
		{"check failed", `r = tcp_rr(transactions=200)
check("txns", r.transactions, at_least=201, result=r)
check("p99", r.latency.p99, at_most="1h", result=r)
check("nothing", None)`, nil, exitCheckFailed, "3 2 0 txns=fail p99=pass nothing=fail",
			[]string{"check FAIL txns: 200 (wanted >= 201)", "check FAIL nothing: None (nothing measured)"}},
		{"test failed", fmt.Sprintf(`r = tcp_rr(host="127.0.0.1", port=%d, transactions=10, keep_going=True)
check("txns", r.transactions, at_least=10, result=r)
check("ran", r)
check("cond", True)`, closed), nil, exitTestsFailed, "4 2 1 txns=fail ran=fail cond=pass script=fail",
			[]string{"check FAIL txns: failed: tcp_rr: dial 127.0.0.1:", "check FAIL ran: failed: "}},
		{"script error", `check("before", True)
fail("broken")`, nil, exitScriptError, "2 0 1 before=pass script=fail", []string{"check PASS before"}},
		{"bad bound", `check("x", 1, at_least="fast")`, nil, exitScriptError, "1 0 1 script=fail", nil},
		{"usage", `check("x", True)`, []string{"--junit", filepath.Join(dir, "no", "such", "x.xml")}, exitUsage, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := strings.ReplaceAll(c.name, " ", "_")
			sc := filepath.Join(dir, name+".star")
			if err := os.WriteFile(sc, []byte(c.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			xml, jl, rec := filepath.Join(dir, name+".xml"), filepath.Join(dir, name+".jl"), filepath.Join(dir, name+".json")
			args := c.args
			if args == nil {
				args = []string{"-q", "--allow-net=127.0.0.1", "--junit", xml, "--json-lines", jl, "--record", rec}
			}
			r := netscript(t, 2*time.Minute, append(args, sc)...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			for _, l := range c.lines {
				if !strings.Contains(r.stdout, l) {
					t.Errorf("stdout lacks %q:\n%s", l, r.stdout)
				}
			}
			if c.junit == "" {
				return
			}
			if got := junitCounts(t, xml); got != c.junit {
				t.Errorf("junit: %q, want %q", got, c.junit)
			}
			if c.code == exitCheckFailed {
				if !strings.Contains(r.stderr, "2 of 3 checks failed") {
					t.Errorf("stderr does not count the failed checks:\n%s", r.stderr)
				}
				if s := netscript(t, time.Minute, "show", rec); !strings.Contains(s.stdout, "checks: 3, 2 failed\nFAIL txns: 200 (wanted >= 201)\nPASS p99") {
					t.Errorf("show does not list the checks:\n%s", s.stdout)
				}
				html := filepath.Join(dir, "report.html")
				netscript(t, time.Minute, "report", rec, "-o", html)
				if b, _ := os.ReadFile(html); !strings.Contains(string(b), "<h2>Checks</h2>") || !strings.Contains(string(b), "<td>nothing</td><td><strong>FAIL</strong>") {
					t.Errorf("the report has no checks")
				}
			}
			checkLines(t, jl, rec, strings.Count(c.junit, "=")-strings.Count(c.junit, "script="), c.code)
		})
	}
}

// checkLines holds the checks in the JSON lines and the record: n of
// them, and the record's status for the exit code.
func checkLines(t *testing.T, jl, rec string, n, code int) {
	t.Helper()
	b, err := os.ReadFile(jl)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var v struct {
			Kind  string
			Check *struct {
				Name string
				Pass bool
			}
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("json line %q: %v", l, err)
		}
		if v.Kind == "check" {
			if v.Check == nil || v.Check.Name == "" {
				t.Errorf("check line without its check: %s", l)
			}
			got++
		}
	}
	if got != n {
		t.Errorf("%d check lines, want %d", got, n)
	}
	var run struct {
		Status string
		Checks []json.RawMessage
	}
	b, err = os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Checks) != n {
		t.Errorf("record has %d checks, want %d", len(run.Checks), n)
	}
	want := map[int]string{exitOK: "ok", exitCheckFailed: "checks failed", exitScriptError: "error", exitTestsFailed: "failed"}[code]
	if run.Status != want {
		t.Errorf("record status %q, want %q", run.Status, want)
	}
}
