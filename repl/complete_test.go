package repl

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/script"
	"netscript/starlib/values"
)

// TestComplete: what Tab offers for the text before the cursor.
func TestComplete(t *testing.T) {
	globals := script.Globals(nil)
	globals["r"] = values.NewResult(&result.Result{Test: "TCP_RR", Latency: &result.Latency{}})
	globals["rates"] = starlark.NewList(nil)
	cases := []struct {
		name, before string
		head         string
		want         []string // all of them, in order, when exact; else a subset
		exact        bool
		absent       string
	}{
		// A builtin's name.
		{"builtin", "tcp_c", "", []string{"tcp_cc", "tcp_crr"}, true, ""},
		// Several names: all of them, globals and Starlark's own.
		{"names", "r", "", []string{"r", "range", "rates", "repr", "responsiveness", "return", "reversed", "round", "rrul"}, true, ""},
		// Keyword options inside a workload's call, and only them.
		{"option", "x = tcp_rr(dur", "x = tcp_rr(", []string{"duration="}, true, ""},
		{"option after another", "tcp_rr(duration=1, bur", "tcp_rr(duration=1, ", []string{"burst="}, true, ""},
		// An option already given is not offered again.
		{"used option", "tcp_rr(request=1, ", "tcp_rr(request=1, ", []string{"response="}, false, "request="},
		// tcp_crr has no burst.
		{"option of another workload", "tcp_crr(bur", "tcp_crr(", nil, true, ""},
		// Inside a nested call the innermost one counts.
		{"nested call", "table([tcp_rr(transac", "table([tcp_rr(", []string{"transactions="}, true, ""},
		// A non-workload builtin: its keywords, then names.
		{"table keywords", "table(rates, f", "table(rates, ", []string{"fields=", "fail", "fleet", "float", "for", "format"}, true, ""},
		// defaults() takes every workload option.
		{"defaults keywords", "defaults(dur", "defaults(", []string{"duration="}, true, ""},
		// After a value: not an argument start, so names.
		{"after =", "tcp_rr(nodelay=Tr", "tcp_rr(nodelay=", []string{"True"}, true, ""},
		// Fields after a result's dot, and nested fields.
		{"field", "print(r.lat", "print(", []string{"r.latency"}, true, ""},
		{"nested field", "r.latency.p9", "", []string{"r.latency.p90", "r.latency.p99", "r.latency.p999"}, true, ""},
		{"method", "r.to", "", []string{"r.to_dict"}, true, ""},
		// A module's members.
		{"module", "json.enc", "", []string{"json.encode", "json.encode_indent"}, true, ""},
		// Something that is not a global has no fields to offer.
		{"unknown", "nope.x", "", nil, true, ""},
		// Nothing is completed inside a string.
		{"string", `print("tcp`, `print("`, nil, true, ""},
	}
	for _, c := range cases {
		head, got, tail := Complete(globals, c.before, ")")
		if head != c.head || tail != ")" {
			t.Errorf("%s: head %q tail %q, want %q", c.name, head, tail, c.head)
		}
		if c.exact && strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		for _, w := range c.want {
			if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+w+" ") {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		if c.absent != "" && strings.Contains(" "+strings.Join(got, " ")+" ", " "+c.absent+" ") {
			t.Errorf("%s: %q has %q", c.name, got, c.absent)
		}
	}
}

// TestCompleteIndent: Tab at the start of a line indents.
func TestCompleteIndent(t *testing.T) {
	head, got, _ := Complete(starlark.StringDict{}, "    ", "")
	if head != "" || len(got) != 1 || got[0] != "        " {
		t.Errorf("got %q %q", head, got)
	}
}

func TestHistoryPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if got := HistoryPath(); got != "/state/netscript/history" {
		t.Errorf("with XDG_STATE_HOME: %s", got)
	}
	t.Setenv("XDG_STATE_HOME", "relative") // the spec says to ignore it
	t.Setenv("HOME", "/home/u")
	if got := HistoryPath(); got != "/home/u/.local/state/netscript/history" {
		t.Errorf("without: %s", got)
	}
}
