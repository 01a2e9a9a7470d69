package workloads

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"netscript/engine/spec"
	"netscript/internal/doccheck"
)

// TestDocsCoverOptions: every option of every workload, as starlib's
// option table and the workload descriptors (spec.Workload.Takes) give
// them, is described in docs/ and in help() of every workload that takes it.
func TestDocsCoverOptions(t *testing.T) {
	docs := doccheck.Read(t, "../../docs")
	for _, o := range options {
		var takers []string
		for _, w := range spec.Workloads() {
			if w.Accepts(o.name) {
				takers = append(takers, w.Name)
			}
		}
		if len(takers) == 0 {
			continue // an option no workload takes yet is no one's to document
		}
		if len(doccheck.DocumentedIn(docs, o.name)) == 0 {
			t.Errorf("option %s (taken by %s) is not in docs/: add a row starting \"| `%s` |\" (default, meaning, netperf flag) to the options table of docs/workloads.md, or a \"## ...\" section there with a list item \"- `%s`: ...\"",
				o.name, strings.Join(takers, ", "), o.name, o.name)
		}
		if strings.TrimSpace(o.doc) == "" {
			t.Errorf("option %s has no help() text: fill in the meaning of its entry in the option table (starlib/workloads/options.go, var testOptions, or knobs.go, var knobOptions)", o.name)
		}
		for _, w := range spec.Workloads() {
			if w.Accepts(o.name) && !strings.Contains(workloadHelp(w), "\n  "+o.name+" = ") {
				t.Errorf("help(%s) does not list option %s: add it to the option table (starlib/workloads/options.go, var testOptions, or knobs.go, var knobOptions)", w.Name, o.name)
			}
		}
	}
}

// TestOptionHelpAlike: option texts in help(workload) are phrases saying
// what the value is, in lower case ("requests kept in flight ..."), except
// for an initial acronym ("SO_SNDBUF of ...") or "True:"/"False:".
func TestOptionHelpAlike(t *testing.T) {
	for _, o := range options {
		word := strings.Fields(o.doc)[0]
		switch {
		case word == "True:" || word == "False:":
		case strings.ToUpper(word) == word:
		case unicode.IsUpper([]rune(word)[0]):
			t.Errorf("option %s: help text starts %q, in capitals; write a lower-case phrase saying what the value is", o.name, word)
		}
	}
}

// TestNetperfFlags: options give netperf's global options as "-x" and its
// test-specific ones, those after "--", as "-- -x", in help() and in the
// options table of docs/workloads.md (netperf's -D is its interim interval,
// -- -D is TCP_NODELAY; -b paces, -- -b is a burst).
func TestNetperfFlags(t *testing.T) {
	cases := []struct{ option, flag string }{
		{"host", "-H"},
		{"port", "-p"},
		{"duration", "-l"},
		{"request", "-- -r"},
		{"response", "-- -r"},
		{"burst", "-- -b"},
		{"nodelay", "-- -D"},
		{"send_size", "-- -m"},
		{"recv_size", "-- -M"},
		{"fastopen", "-- -F"},
		{"send_buffer", "-- -s"},
		{"recv_buffer", "-- -s"},
		{"remote_send_buffer", "-- -S"},
		{"remote_recv_buffer", "-- -S"},
		{"local", "-- -L"},
		{"local_port", "-- -P"},
		{"data_port", "-- -P"},
		{"local_ports", "-- -p"},
		{"timeout", "-- -e"},
		{"interval", "-D"}, // global: demo mode's interim results
		{"rate", "-w"},
		{"cpu", "-T"},
		{"remote_cpu", "-T"},
		{"cpu_util", "-c"},
		{"brand", "-B"},
		{"family", "-4"},
	}
	workloads := doccheck.Read(t, "../../docs")["docs/workloads.md"]
	for _, c := range cases {
		o, ok := findOption(options, c.option)
		if !ok {
			t.Errorf("no option %s", c.option)
			continue
		}
		want := "netperf " + c.flag
		if !strings.HasPrefix(c.flag, "--") {
			// a global flag must not be written after "--"
			if strings.Contains(o.doc, "netperf -- "+c.flag) || !strings.Contains(o.doc, want) {
				t.Errorf("option %s: help text %q does not give netperf's global %s as %q", c.option, o.doc, c.flag, want)
			}
		} else if !strings.Contains(o.doc, want) {
			t.Errorf("option %s: help text %q does not give netperf's test-specific %s as %q", c.option, o.doc, c.flag[3:], want)
		}
		row := ""
		for _, l := range strings.Split(workloads, "\n") {
			if strings.HasPrefix(l, "| `"+c.option+"`") || strings.HasPrefix(l, "| `") && strings.Contains(l, ", `"+c.option+"` |") {
				row = l
			}
		}
		if row == "" {
			t.Errorf("docs/workloads.md has no options-table row for %s", c.option)
		} else if !strings.Contains(row, "`"+c.flag) {
			t.Errorf("docs/workloads.md: the row of %s does not give netperf's %q: %s", c.option, c.flag, row)
		}
	}
}

// TestOptionHelpStatesTheRegistry: option texts that name workloads or a
// bound of the engine take them from the registry: the workloads whose
// server sends (send_size) or receives (recv_size), those that multiplex
// many flows (flows), and spec.ThreadedFlows for the knobs that hold on
// multiplexed flows too.
func TestOptionHelpStatesTheRegistry(t *testing.T) {
	doc := func(name string) string {
		o, ok := findOption(options, name)
		if !ok {
			t.Fatalf("no option %s", name)
		}
		return o.doc
	}
	for _, w := range spec.Takers("send_size") {
		if w.Bulk && w.ServerSends && !strings.Contains(doc("send_size"), w.Name+" the server's sends") {
			t.Errorf("send_size: %q does not say %s's server sends", doc("send_size"), w.Name)
		}
	}
	for _, w := range spec.Takers("recv_size") {
		if w.ClientSends() && !strings.Contains(doc("recv_size"), w.Name) {
			t.Errorf("recv_size: %q does not say %s's server receives", doc("recv_size"), w.Name)
		}
	}
	for _, w := range spec.Workloads() {
		if w.MuxClient && !strings.Contains(doc("flows"), w.Name) {
			t.Errorf("flows: %q does not name %s, which multiplexes its flows", doc("flows"), w.Name)
		}
	}
	more := fmt.Sprintf("(more than %d)", spec.ThreadedFlows)
	for _, k := range []string{spec.OptQuickAck, spec.OptTCPInfo} {
		if !strings.Contains(doc(k), more) {
			t.Errorf("%s: %q does not give spec.ThreadedFlows as %q", k, doc(k), more)
		}
	}
}
