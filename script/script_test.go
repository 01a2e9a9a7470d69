package script_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"netscript/script"
	"netscript/session"
	"netscript/starlib/thread"
)

// TestParseArgs: NAME=VALUE pairs, values kept as strings; a pair without
// a name or an = is refused, naming it.
func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		pairs []string
		want  map[string]string
		err   string
	}{
		{nil, map[string]string{}, ""},
		{[]string{"duration=2", "host=198.18.0.2"}, map[string]string{"duration": "2", "host": "198.18.0.2"}, ""},
		{[]string{"empty="}, map[string]string{"empty": ""}, ""},
		{[]string{"a=b=c"}, map[string]string{"a": "b=c"}, ""},
		{[]string{"duration"}, nil, `argument "duration" is not NAME=VALUE`},
		{[]string{"=2"}, nil, `argument "=2" is not NAME=VALUE`},
	} {
		got, err := script.ParseArgs(c.pairs)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%q: got %v, want %q", c.pairs, err, c.err)
		case c.err == "" && (err != nil || len(got) != len(c.want)):
			t.Errorf("%q: got %v, %v", c.pairs, got, err)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%q: %s = %q, want %q", c.pairs, k, got[k], v)
			}
		}
	}
}

// TestReadScript: a missing file, a directory and text that is not UTF-8
// are each one clear error naming the path.
func TestReadScript(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.star")
	os.WriteFile(bad, []byte{0xff, 0xfe, 'x'}, 0o644)
	good := filepath.Join(dir, "good.star")
	os.WriteFile(good, []byte("x = 1\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "none.star"), "no such file"},
		{dir, "is a directory, not a script"},
		{bad, "not UTF-8 text"},
	} {
		if _, err := script.ReadScript(c.path, 0); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: got %v, want %q", c.path, err, c.want)
		}
	}
	if sc, err := script.ReadScript(good, 0); err != nil || string(sc.Src) != "x = 1\n" {
		t.Errorf("good script: %v", err)
	}
}

// TestLoad: load() resolves relative to the loading file, runs a module
// once, and a cycle is an error that names the chain of files.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("lib/util.star", "calls = []\ndef twice(x):\n    return 2 * x\n")
	write("lib/more.star", `load("util.star", "twice")`+"\nfour = twice(2)\n")
	main := write("main.star", `load("lib/util.star", "twice")`+"\n"+`load("lib/more.star", "four")`+"\nresult = twice(four)\n")
	env := session.New("test")
	defer env.Close()
	th := thread.New("main", env, context.Background())
	sc, err := script.ReadScript(main, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := script.Exec(th, sc)
	if err != nil {
		t.Fatal(script.FormatError(err, script.Source(sc)))
	}
	if g["result"].String() != "8" {
		t.Errorf("result = %v, want 8", g["result"])
	}

	a := write("a.star", `load("b.star", "y")`+"\nx = 1\n")
	write("b.star", `load("a.star", "x")`+"\ny = 2\n")
	sc, _ = script.ReadScript(a, 0)
	_, err = script.Exec(thread.New("main", env, context.Background()), sc)
	if err == nil || !strings.Contains(err.Error(), "load cycle: "+a+" loads "+filepath.Join(dir, "b.star")+" loads "+a) {
		t.Errorf("cycle: %v", err)
	}
}

// TestFormatError: a syntax error shows the position, the line and a caret
// under the column; a runtime error at the top level is one line with its
// position; deeper down, the backtrace.
func TestFormatError(t *testing.T) {
	env := session.New("test")
	defer env.Close()
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"syntax", "x = (1,\ny = 2\n", []string{"t.star:2:4: got '=', want ')'", "    y = 2", "       ^"}},
		{"undefined", "print(nope)\n", []string{"t.star:1:7: undefined: nope", "    print(nope)", "          ^"}},
		{"top level", "x = 1 // 0\n", []string{"t.star:1:7: floored division by zero"}},
		{"nested", "def f():\n    return 1 // 0\nf()\n", []string{"Traceback (most recent call last):", "t.star:3:2: in <toplevel>", "t.star:2:14: in f"}},
	} {
		sc := &session.Script{Name: "t.star", Src: []byte(c.src)}
		_, err := script.Exec(thread.New("main", env, context.Background()), sc)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		got := script.FormatError(err, script.Source(sc))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
	}
}
