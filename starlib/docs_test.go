package starlib

import (
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"

	"netscript/internal/doccheck"
	"netscript/starlib/module"
	"netscript/starlib/std"
	"netscript/starlib/values"
)

// starlarkModule reports whether v is one of Starlark's own modules
// (go.starlark.net/lib), which Starlark documents: the manual names them
// but does not describe each member.
func starlarkModule(v starlark.Value) bool {
	return v == starlark.Value(json.Module) || v == starlark.Value(math.Module) || v == starlark.Value(time.Module)
}

// TestDocsCoverBuiltins: every predeclared name (the builtins, and the
// members of netscript's own modules) is described in docs/ and has a
// help() entry.
func TestDocsCoverBuiltins(t *testing.T) {
	manual := doccheck.Read(t, "../docs")
	pre := Predeclared()
	var names []string
	for n := range pre {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := pre[n]
		if _, builtin := v.(*starlark.Builtin); !builtin && len(doccheck.DocumentedIn(manual, n)) == 0 {
			t.Errorf("module %s is not in docs/: name it in a heading of the docs/ file of its area (\"## The %s module\") and describe its members there", n, n)
		} else if len(doccheck.DocumentedIn(manual, n)) == 0 {
			t.Errorf("builtin %s is not in docs/: describe it in the docs/ file of its area (README.md's table \"The manual\" lists them) under a heading \"## %s()\", in a table row starting \"| `%s(...)` |\" or a list item \"- `%s(...)`: ...\"", n, n, n, n)
		}
		switch v := v.(type) {
		case *starlark.Builtin:
			if _, ok := docs.Lookup(n); !ok {
				t.Errorf("builtin %s has no help() entry: put its text in the Help of its module (module.Module.Help, as format.Module in starlib/format)", n)
			}
		case starlark.HasAttrs:
			if starlarkModule(v) {
				continue
			}
			if _, ok := docs.Lookup(n); !ok {
				t.Errorf("module %s has no help() entry: put its text in the Help of the module that gives it (as statsDoc in starlib/statistics/stats.go)", n)
			}
			for _, m := range v.AttrNames() {
				full := n + "." + m
				if len(doccheck.DocumentedIn(manual, full)) == 0 {
					t.Errorf("builtin %s is not in docs/: describe it in the docs/ file of module %s, in a table row starting \"| `%s(...)` |\" or a list item \"- `%s(...)`: ...\"", full, n, full, full)
				}
				if _, ok := docs.Lookup(full); !ok {
					t.Errorf("builtin %s has no help() entry: put its text, keyed %q, in the Help of the module that gives %s (as statsDocs in starlib/statistics/stats.go)", full, full, n)
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
		if doc, ok := docs.Lookup(n); ok {
			out[n] = doc
		}
		if m, ok := v.(starlark.HasAttrs); ok {
			if _, builtin := v.(*starlark.Builtin); !builtin {
				for _, a := range m.AttrNames() {
					if doc, ok := docs.Lookup(n + "." + a); ok {
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
			if len([]rune(l)) > module.MailWidth {
				t.Errorf("help(%s): line wider than %d: %q", n, module.MailWidth, l)
			}
		}
	}
}

// TestHelpIndexAlike: the lines of help() are lower-case phrases saying
// what each builtin gives, but for an initial name in capitals ("TCP_RR
// test: ...").
func TestHelpIndexAlike(t *testing.T) {
	lines := strings.Split(docs.Index(), "\n")
	for _, l := range lines[1 : len(lines)-1] {
		f := strings.Fields(l)
		if len(f) < 2 {
			t.Errorf("help(): line %q has no description", l)
			continue
		}
		if w := f[1]; unicode.IsUpper([]rune(w)[0]) && strings.ToUpper(w) != w {
			t.Errorf("help(): the line of %s starts %q, in capitals; write a lower-case phrase (\"results as CSV lines\") in the Index of its module (module.Module.Index)", f[0], w)
		}
	}
}

// wideLines are the lines of help texts wider than module.MailWidth that
// issue 27's move found and kept as they were (the move changes no help
// text); a new one is an error.
var wideLines = map[string]bool{
	"result.tcp, result.remote.tcp, result.flows[i].tcp, result.flows[i].remote.tcp -> tcp or None":             true,
	"  ssthresh               slow-start threshold, segments (0: never left slow start)":                        true,
	"deadline, or a stop): discarded counts them, latency leaves them out (as netperf does), and censored says": true,
}

// TestHelpTextsFitAMail: every help text of every module, those made from
// the registry included, keeps to module.MailWidth, and every module
// gives each of its names a help text.
func TestHelpTextsFitAMail(t *testing.T) {
	for _, m := range Modules() {
		for name, text := range m.Help {
			for _, l := range strings.Split(text, "\n") {
				if len([]rune(l)) > module.MailWidth && !wideLines[l] {
					t.Errorf("%s: help(%q): line wider than %d: %q", m.Name, name, module.MailWidth, l)
				}
			}
		}
		for name, v := range m.Members {
			if _, ok := m.Help[name]; !ok && !starlarkModule(v) {
				t.Errorf("%s gives %s without a help text in its Help", m.Name, name)
			}
		}
	}
}

// TestOneNameOneModule: no two modules give the same predeclared name (the
// table would keep one of them).
func TestOneNameOneModule(t *testing.T) {
	by := map[string]string{}
	for _, m := range Modules() {
		for name := range m.Members {
			if other, ok := by[name]; ok {
				t.Errorf("%s is given by %s and by %s", name, other, m.Name)
			}
			by[name] = m.Name
		}
	}
	if len(by) != len(Predeclared()) {
		t.Errorf("the modules give %d names, Predeclared has %d", len(by), len(Predeclared()))
	}
}
