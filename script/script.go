package script

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"

	"netscript/session"
	"netscript/starlib"
	"netscript/starlib/thread"
)

// ReadScript reads a script file, refusing directories, text that is
// not UTF-8 and a file larger than max bytes (0: any size) with a clear
// error.
func ReadScript(path string, max int64) (*session.Script, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("script %s: no such file", path)
		}
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	defer f.Close()
	return readOpen(f, path, max)
}

// readOpen reads the script f, opened as path; an error never quotes its
// bytes.
func readOpen(f *os.File, path string, max int64) (*session.Script, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("script %s: is a directory, not a script", path)
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	if max > 0 && int64(len(src)) > max {
		return nil, &session.LimitError{What: fmt.Sprintf("script %s: larger than %d KB", path, max>>10), Flag: "--max-script-size KB"}
	}
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("script %s: not UTF-8 text", path)
	}
	return &session.Script{Name: path, Src: src}, nil
}

// ParseArgs reads NAME=VALUE pairs.
func ParseArgs(pairs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q is not NAME=VALUE", p)
		}
		m[k] = v
	}
	return m, nil
}

// argsDict converts script arguments to the frozen dict `args`.
func argsDict(m map[string]string) *starlark.Dict {
	d := starlark.NewDict(len(m))
	for k, v := range m {
		d.SetKey(starlark.String(k), starlark.String(v))
	}
	d.Freeze()
	return d
}

// Exec runs a script on th with the predeclared names and the script's
// args; load() resolves relative to the loading file.
func Exec(th *starlark.Thread, sc *session.Script) (starlark.StringDict, error) {
	pre := Globals(sc.Args)
	l := newLoader(pre)
	l.top(sc.Name)
	th.Load = l.load
	g, err := starlib.ExecFile(th, sc.Name, sc.Src, pre)
	sc.Modules = l.texts
	return g, err
}

// Globals returns what a script starts with: the predeclared names and
// args, the frozen dict of its NAME=VALUE pairs.
func Globals(args map[string]string) starlark.StringDict {
	pre := starlib.Predeclared()
	pre["args"] = argsDict(args)
	return pre
}

// LoadFunc returns a thread's load function for modules that start with
// pre: a module resolves relative to the file that loads it (the current
// directory for -c, stdin and the REPL), runs once, and a cycle is an
// error that names the file.
func LoadFunc(pre starlark.StringDict) func(th *starlark.Thread, module string) (starlark.StringDict, error) {
	return newLoader(pre).load
}

// loader resolves load() statements relative to the loading file, runs
// each module once, and reports a cycle with the chain of files in it.
type loader struct {
	pre     starlark.StringDict
	cache   map[string]*loadEntry // by absolute path
	loading []string              // the chain of files being loaded, as named
	texts   map[string][]byte     // the text of each module read, by name, for error excerpts
}

// loadEntry is one module in the loader's cache: its globals or the error
// that loading it gave, or loading while it runs.
type loadEntry struct {
	globals starlark.StringDict
	err     error
	loading bool
}

func newLoader(pre starlark.StringDict) *loader {
	return &loader{pre: pre, cache: map[string]*loadEntry{}, texts: map[string][]byte{}}
}

// top marks the script that loads the rest, so a module that loads it
// back is a cycle rather than a second copy of it.
func (l *loader) top(name string) {
	if strings.HasPrefix(name, "<") {
		return
	}
	if abs, err := filepath.Abs(name); err == nil {
		l.cache[abs] = &loadEntry{loading: true}
		l.loading = append(l.loading, name)
	}
}

func (l *loader) load(th *starlark.Thread, module string) (starlark.StringDict, error) {
	from := th.CallFrame(0).Pos.Filename()
	path := module
	if !filepath.IsAbs(path) {
		dir := "."
		if from != "" && !strings.HasPrefix(from, "<") {
			dir = filepath.Dir(from)
		}
		path = filepath.Join(dir, module)
	}
	key, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if e, ok := l.cache[key]; ok {
		if e.loading {
			return nil, fmt.Errorf("load cycle: %s loads %s", strings.Join(l.loading, " loads "), path)
		}
		return e.globals, e.err
	}
	e := &loadEntry{loading: true}
	l.cache[key] = e
	sc, err := l.read(th, path)
	if err != nil {
		e.err, e.loading = err, false
		return nil, err
	}
	l.texts[path] = sc.Src
	child := thread.NewLoad(th, "load "+path)
	child.Load = l.load
	// Ctrl-C cancels the statement's context: stop the module's own code
	// too, not only the tests it runs.
	done := make(chan struct{})
	go func() {
		select {
		case <-thread.Context(th).Done():
			child.Cancel("interrupted")
		case <-done:
		}
	}()
	l.loading = append(l.loading, path)
	e.globals, e.err = starlib.ExecFile(child, path, sc.Src, l.pre)
	l.loading = l.loading[:len(l.loading)-1]
	close(done)
	e.loading = false
	return e.globals, e.err
}

// read opens and reads a module as the run's permissions allow: beneath
// the started script's directory or an --allow-read DIR only, when the
// session has permissions (a script file); anywhere for the person's own
// typing.
func (l *loader) read(th *starlark.Thread, path string) (*session.Script, error) {
	var perms *session.Permissions
	var max int64
	if s, err := thread.Session(th); err == nil {
		perms, max = s.Perms, s.Limits.ScriptBytes
	}
	f, err := perms.OpenModule(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("script %s: no such file", path)
		}
		return nil, err
	}
	defer f.Close()
	return readOpen(f, path, max)
}
