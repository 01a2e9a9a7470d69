package starlib

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/starlib/output"
	"netscript/starlib/std"
	"netscript/starlib/values"
)

// docsDir is the manual, beside the README at the top of the module.
const docsDir = "../docs"

// readDocs returns the text of every docs/*.md file, by file name.
func readDocs(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md beside the module (%v)", err)
	}
	docs := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs["docs/"+filepath.Base(f)] = string(b)
	}
	return docs
}

// documentedIn lists the docs files that describe name: where it is
// written as code (`name`, `name(...)`, `name=...`, `name.field`) in the
// first cell of a table row or the first line of a list item, or as a word
// in a heading. A mention in passing elsewhere does not count.
func documentedIn(docs map[string]string, name string) []string {
	code := regexp.MustCompile("`" + regexp.QuoteMeta(name) + "[`(=., \\[]")
	word := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `([^\w.]|$)`)
	var in []string
	for f, text := range docs {
		for _, l := range strings.Split(text, "\n") {
			if describes(strings.TrimSpace(l), code, word) {
				in = append(in, f)
				break
			}
		}
	}
	sort.Strings(in)
	return in
}

// describes reports whether line t of a docs file describes what code (as
// code) and word (as a word in a heading) match.
func describes(t string, code, word *regexp.Regexp) bool {
	switch {
	case strings.HasPrefix(t, "|"):
		cells := strings.SplitN(t, "|", 3)
		return len(cells) == 3 && code.MatchString(cells[1])
	case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
		return code.MatchString(t)
	case strings.HasPrefix(t, "#"):
		return word.MatchString(strings.TrimLeft(t, "# "))
	}
	return false
}

// starlarkModule reports whether v is one of Starlark's own modules
// (go.starlark.net/lib), which Starlark documents: the manual names them
// but does not describe each member.
func starlarkModule(v starlark.Value) bool {
	return v == starlark.Value(json.Module) || v == starlark.Value(math.Module) || v == starlark.Value(time.Module)
}

// TestDocsCoverOptions: every option of every workload, as starlib's
// option table and the workload descriptors (spec.Workload.Takes) give
// them, is described in docs/ and in help() of every workload that takes it.
func TestDocsCoverOptions(t *testing.T) {
	docs := readDocs(t)
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
		if len(documentedIn(docs, o.name)) == 0 {
			t.Errorf("option %s (taken by %s) is not in docs/: add a row starting \"| `%s` |\" (default, meaning, netperf flag) to the options table of docs/workloads.md, or a \"## ...\" section there with a list item \"- `%s`: ...\"",
				o.name, strings.Join(takers, ", "), o.name, o.name)
		}
		if strings.TrimSpace(o.doc) == "" {
			t.Errorf("option %s has no help() text: fill in the meaning of its entry in starlib's option table (starlib/options.go, var options)", o.name)
		}
		for _, w := range spec.Workloads() {
			if w.Accepts(o.name) && !strings.Contains(workloadHelp(w), "\n  "+o.name+" = ") {
				t.Errorf("help(%s) does not list option %s: add it to starlib's option table (starlib/options.go, var options)", w.Name, o.name)
			}
		}
	}
}

// TestDocsCoverBuiltins: every predeclared name (the builtins, and the
// members of netscript's own modules) is described in docs/ and has a
// help() entry.
func TestDocsCoverBuiltins(t *testing.T) {
	docs := readDocs(t)
	pre := Predeclared()
	var names []string
	for n := range pre {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := pre[n]
		if _, builtin := v.(*starlark.Builtin); !builtin && len(documentedIn(docs, n)) == 0 {
			t.Errorf("module %s is not in docs/: name it in a heading of the docs/ file of its area (\"## The %s module\") and describe its members there", n, n)
		} else if len(documentedIn(docs, n)) == 0 {
			t.Errorf("builtin %s is not in docs/: describe it in the docs/ file of its area (README.md's table \"The manual\" lists them) under a heading \"## %s()\", in a table row starting \"| `%s(...)` |\" or a list item \"- `%s(...)`: ...\"", n, n, n, n)
		}
		switch v := v.(type) {
		case *starlark.Builtin:
			if _, ok := helpDocOf(n); !ok {
				t.Errorf("builtin %s has no help() entry: put its text in a doc map of its own file (as outputDoc in starlib/help.go) and look that map up in helpDocOf (starlib/help.go)", n)
			}
		case starlark.HasAttrs:
			if starlarkModule(v) {
				continue
			}
			if _, ok := helpDocOf(n); !ok {
				t.Errorf("module %s has no help() entry: put its text in a doc map (as statsDoc in starlib/stats.go) and look it up in helpDocOf (starlib/help.go)", n)
			}
			for _, m := range v.AttrNames() {
				full := n + "." + m
				if len(documentedIn(docs, full)) == 0 {
					t.Errorf("builtin %s is not in docs/: describe it in the docs/ file of module %s, in a table row starting \"| `%s(...)` |\" or a list item \"- `%s(...)`: ...\"", full, n, full, full)
				}
				if _, ok := helpDocOf(full); !ok {
					t.Errorf("builtin %s has no help() entry: put its text, keyed %q, in the doc map of module %s (as statsDocs in starlib/stats.go)", full, full, n)
				}
			}
		}
	}
}

// helpEntries returns every help() text keyed by what it documents: the
// predeclared builtins, the members of netscript's modules, the json
// members netscript documents, and a result.
func helpEntries(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"result": values.ResultDoc}
	for n, v := range Predeclared() {
		if starlarkModule(v) {
			continue
		}
		if doc, ok := helpDocOf(n); ok {
			out[n] = doc
		}
		if m, ok := v.(starlark.HasAttrs); ok {
			if _, builtin := v.(*starlark.Builtin); !builtin {
				for _, a := range m.AttrNames() {
					if doc, ok := helpDocOf(n + "." + a); ok {
						out[n+"."+a] = doc
					}
				}
			}
		}
	}
	for n, doc := range std.Module.Help {
		out[n] = doc
	}
	return out
}

// thirdPerson is the first word of a help text: a verb in the present
// tense, third person, capitalised ("Lays", "Returns", "Re-indents").
var thirdPerson = regexp.MustCompile(`^[A-Z][a-z]+(-[a-z]+)?s$`)

// TestHelpEntriesAlike: every help() entry is written alike: a signature
// line (name(params) with an optional "-> type"; "name (what it is)" for
// a module or a result), a blank line, then a sentence that starts with a
// verb in the third person ("Lays results out ..."), lines at most
// MailWidth wide.
func TestHelpEntriesAlike(t *testing.T) {
	entries := helpEntries(t)
	var names []string
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 10 {
		t.Fatalf("only %d help entries found: %v", len(names), names)
	}
	for _, n := range names {
		lines := strings.Split(entries[n], "\n")
		sig := regexp.MustCompile(`^` + regexp.QuoteMeta(n) + `(\(.*\)( -> [A-Za-z]+)?| \([a-z ]+\))$`)
		if !sig.MatchString(lines[0]) {
			t.Errorf("help(%s) starts with %q, not a signature such as %q", n, lines[0], n+"(x, y=1) -> str")
			continue
		}
		if len(lines) < 3 || lines[1] != "" {
			t.Errorf("help(%s): the signature line is not followed by a blank line and a sentence", n)
			continue
		}
		first := strings.Fields(lines[2])
		if len(first) == 0 || !thirdPerson.MatchString(first[0]) {
			t.Errorf("help(%s): the text after the signature starts %q; start with a verb in the third person, capitalised (\"Lays results out ...\", \"Returns ...\")", n, lines[2])
		}
		for _, l := range lines {
			if len([]rune(l)) > output.MailWidth {
				t.Errorf("help(%s): line wider than %d: %q", n, output.MailWidth, l)
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
	workloads := readDocs(t)["docs/workloads.md"]
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

// TestDocsCoverResultFields: every field of a result is described in
// docs/results.md.
func TestDocsCoverResultFields(t *testing.T) {
	docs := map[string]string{"docs/results.md": readDocs(t)["docs/results.md"]}
	r := values.NewResult(&result.Result{})
	for _, f := range r.AttrNames() {
		if _, method := mustAttr(t, r, f).(*starlark.Builtin); method {
			continue // to_dict
		}
		if len(documentedIn(docs, f)) == 0 {
			t.Errorf("result field %s is not in docs/results.md: add a row starting \"| `%s` |\" to its table of fields, or a \"## ...\" section there with a list item \"- `%s`: ...\"", f, f, f)
		}
	}
}

// mustAttr returns the attribute name of v.
func mustAttr(t *testing.T, v starlark.HasAttrs, name string) starlark.Value {
	t.Helper()
	x, err := v.Attr(name)
	if err != nil || x == nil {
		t.Fatalf("%s: %v", name, err)
	}
	return x
}

// TestHelpIndexAlike: the lines of help() are lower-case phrases saying
// what each builtin gives, but for an initial name in capitals ("TCP_RR
// test: ...").
func TestHelpIndexAlike(t *testing.T) {
	lines := strings.Split(helpIndex(), "\n")
	for _, l := range lines[1 : len(lines)-1] {
		f := strings.Fields(l)
		if len(f) < 2 {
			t.Errorf("help(): line %q has no description", l)
			continue
		}
		if w := f[1]; unicode.IsUpper([]rune(w)[0]) && strings.ToUpper(w) != w {
			t.Errorf("help(): the line of %s starts %q, in capitals; write a lower-case phrase (\"results as CSV lines\") in indexDoc (starlib/help.go) or its area's index map", f[0], w)
		}
	}
}
