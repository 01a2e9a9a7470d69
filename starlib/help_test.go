package starlib

import (
	"context"
	"io"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"

	"netscript/session"
	"netscript/starlib/module"
	"netscript/starlib/thread"
)

// TestHelp: help() prints, through print(), what each kind of value is and
// how to use it.
func TestHelp(t *testing.T) {
	cases := []struct {
		name, code string
		want       []string
	}{
		// A workload: its options with defaults and meaning, from the option table.
		{"workload", `help(tcp_rr)`, []string{"tcp_rr(option=value, ...) -> result", "TCP_RR", "duration = 10s", "burst = 0", "requests kept in flight beyond the first (netperf -- -b)"}},
		// By name, as a string.
		{"by name", `help("udp_rr")`, []string{"udp_rr(option=value, ...)", "timeout = 1s"}},
		// An option that does not apply is not listed.
		{"crr has no burst", `help(tcp_crr)`, []string{"tcp_crr(option=value, ...)", "TCP_CRR", "connect,"}},
		{"output", `help(table)`, []string{"table(results, fields=None) -> str", "80 columns"}},
		{"env", `help(env)`, []string{"env() -> env", "net.ipv4.tcp_congestion_control"}},
		// The index lists every builtin with a line about it.
		{"index", `help()`, []string{"tcp_rr", "table", "csv", "kv", "env", "help", "json"}},
		// A result: what its fields mean.
		{"result", `help(tcp_rr(transactions=5))`, []string{"latency", "p999", "remote"}},
		// A script's own function: its signature and docstring.
		{"function", "def f(a, b=2):\n    \"\"\"Adds.\"\"\"\n    return a + b\nhelp(f)", []string{"f(a, b=2)", "Adds."}},
		// A module lists its members.
		{"module", `help(math)`, []string{"math", "sqrt"}},
		// A flow of a result: its fields, its own interim samples.
		{"flow", `help(tcp_rr(transactions=5).flows[0])`, []string{"result.flows[i] -> flow", "interim", "result.interim[k]"}},
		{"flows by name", `help("result.flows")`, []string{"result.flows[i] -> flow"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th, _ := newTestThread(t)
			var out strings.Builder
			th.Print = func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }
			if _, err := starlark.ExecFileOptions(FileOptions(), th, "help.star", c.code, Predeclared()); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("lacks %q:\n%s", w, out.String())
				}
			}
			if c.name == "crr has no burst" && strings.Contains(out.String(), "burst =") {
				t.Errorf("tcp_crr lists burst:\n%s", out.String())
			}
			for _, line := range strings.Split(out.String(), "\n") {
				if len(line) > module.MailWidth {
					t.Errorf("line wider than %d: %q", module.MailWidth, line)
				}
			}
		})
	}
}

func TestHelpErrors(t *testing.T) {
	th, _ := newTestThread(t)
	_, err := starlark.ExecFileOptions(FileOptions(), th, "help.star", `help("tcp_rrr")`, Predeclared())
	if err == nil || !strings.Contains(err.Error(), `help: no builtin is called "tcp_rrr"; help() lists them`) {
		t.Errorf("got %v", err)
	}
}

// TestKeywords: completion's source of keyword names.
func TestKeywords(t *testing.T) {
	cases := []struct {
		builtin string
		want    string // one of them
		absent  string
	}{
		{"tcp_rr", "burst", ""},
		{"tcp_crr", "duration", "burst"},
		{"udp_rr", "timeout", "nodelay"},
		{"table", "fields", ""},
		{"print", "", ""},
	}
	for _, c := range cases {
		got := " " + strings.Join(Keywords(c.builtin), " ") + " "
		if c.want != "" && !strings.Contains(got, " "+c.want+" ") {
			t.Errorf("Keywords(%s) = %s, lacks %s", c.builtin, got, c.want)
		}
		if c.absent != "" && strings.Contains(got, " "+c.absent+" ") {
			t.Errorf("Keywords(%s) = %s, has %s", c.builtin, got, c.absent)
		}
	}
}

// newTestThread returns a thread over a fresh session whose output is
// discarded, and closes the session when the test ends.
func newTestThread(t *testing.T) (*starlark.Thread, *session.Session) {
	t.Helper()
	s := session.New("test")
	s.Stdout, s.Stderr = io.Discard, io.Discard
	t.Cleanup(func() { s.Close() })
	th := thread.New(t.Name(), s, context.Background())
	starlarktest.SetReporter(th, t)
	return th, s
}
