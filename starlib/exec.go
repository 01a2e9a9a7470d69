package starlib

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
)

// Script is a program to run: a file or a -c snippet, with its arguments.
type Script struct {
	Name string            // file name, or "<command-line>" for -c
	Src  []byte            // the program text
	Args map[string]string // NAME=VALUE pairs, as the dict `args`
}

// ReadScript reads a script file, refusing directories and text that is
// not UTF-8 with a clear error.
func ReadScript(path string) (*Script, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("script %s: no such file", path)
		}
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("script %s: is a directory, not a script", path)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("script %s: not UTF-8 text", path)
	}
	return &Script{Name: path, Src: src}, nil
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
func Exec(th *starlark.Thread, sc *Script) (starlark.StringDict, error) {
	pre := Predeclared()
	pre["args"] = argsDict(sc.Args)
	th.Load = newLoader(pre).load
	return starlark.ExecFileOptions(FileOptions(), th, sc.Name, sc.Src, pre)
}

// loader resolves load() statements relative to the loading file, caches
// modules and reports cycles.
type loader struct {
	pre   starlark.StringDict
	cache map[string]*loadEntry
}

type loadEntry struct {
	globals starlark.StringDict
	err     error
	loading bool
}

func newLoader(pre starlark.StringDict) *loader {
	return &loader{pre: pre, cache: map[string]*loadEntry{}}
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
	if e, ok := l.cache[path]; ok {
		if e.loading {
			return nil, fmt.Errorf("load cycle: %s loads itself (through %s)", path, from)
		}
		return e.globals, e.err
	}
	e := &loadEntry{loading: true}
	l.cache[path] = e
	sc, err := ReadScript(path)
	if err != nil {
		e.err, e.loading = err, false
		return nil, err
	}
	child := &starlark.Thread{Name: "load " + path, Print: th.Print, Load: l.load}
	for _, k := range []string{localEnv, localCtx} {
		child.SetLocal(k, th.Local(k))
	}
	e.globals, e.err = starlark.ExecFileOptions(FileOptions(), child, path, sc.Src, l.pre)
	e.loading = false
	return e.globals, e.err
}
