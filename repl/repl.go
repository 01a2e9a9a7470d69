// Package repl is netscript's interactive session: a Starlark prompt on
// github.com/peterh/liner with history kept across sessions, Tab completion
// of builtins, keyword options and result fields, and a Ctrl-C that stops
// the running test (its context and the Starlark thread, as delve does)
// but keeps the session and every variable in it.
//
// Use it only when stdin and stdout are both terminals; otherwise read
// stdin as a script.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/peterh/liner"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"netscript/script"
	"netscript/session"
	"netscript/starlib"
	"netscript/starlib/thread"
)

// Options adjust a session.
type Options struct {
	// HistoryFile keeps the lines entered across sessions; "" means
	// HistoryPath().
	HistoryFile string
}

// Prompts, as Python's.
const (
	Prompt         = ">>> "
	ContinuePrompt = "... "
)

// HistoryPath is where history is kept: $XDG_STATE_HOME/netscript/history,
// or ~/.local/state/netscript/history.
func HistoryPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "netscript", "history")
}

// console is one interactive session's state.
type console struct {
	env     *session.Session
	line    *liner.State
	th      *starlark.Thread
	globals starlark.StringDict
	opts    *syntax.FileOptions
	history string

	mu     sync.Mutex
	cancel func() // stops the statement running now; nil at the prompt
}

// Run holds an interactive session on the terminal until Ctrl-D, and
// returns the exit status (0).
func Run(env *session.Session, o Options) int {
	s := &console{env: env, globals: script.Globals(nil), history: o.HistoryFile}
	if s.history == "" {
		s.history = HistoryPath()
	}
	// The dialect of files and -c; load() bindings stay global, as they
	// must when each statement is its own chunk.
	opts := *starlib.FileOptions()
	opts.LoadBindsGlobally = true
	s.opts = &opts

	s.th = thread.New("repl", env, context.Background())
	s.th.Load = script.LoadFunc(s.globals)

	defer assumeColumns(os.Stdout)()
	s.line = liner.NewLiner()
	defer s.line.Close()
	s.line.SetCtrlCAborts(true)
	s.line.SetTabCompletionStyle(liner.TabPrints)
	s.line.SetWordCompleter(s.complete)
	s.readHistory()

	// While a statement runs the terminal sends SIGINT for Ctrl-C; at the
	// prompt liner reads it as a key.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			s.mu.Lock()
			if s.cancel != nil {
				s.cancel()
			}
			s.mu.Unlock()
		}
	}()

	fmt.Fprintf(env.Stdout, "netscript %s (%s): help() lists the builtins, Ctrl-D leaves.\n", env.Version, runtime.Version())
	for {
		if err := s.rep(); err == io.EOF {
			fmt.Fprintln(env.Stdout)
			return 0
		}
	}
}

// rep reads one statement (several lines for a def, for, if or while),
// runs it and prints the value of an expression. It returns io.EOF when
// the user leaves with Ctrl-D at the first prompt.
func (s *console) rep() error {
	var text strings.Builder
	prompt := Prompt
	var eof, aborted bool
	readline := func() ([]byte, error) {
		l, err := s.line.Prompt(prompt)
		prompt = ContinuePrompt
		switch {
		case err == io.EOF:
			eof = true
			return nil, err
		case errors.Is(err, liner.ErrPromptAborted):
			aborted = true
			return nil, err
		case err != nil:
			eof = true // the terminal is gone
			return nil, err
		}
		if strings.TrimSpace(l) != "" {
			s.line.AppendHistory(l)
			s.saveHistory()
		}
		text.WriteString(l + "\n")
		return []byte(l + "\n"), nil
	}
	f, err := s.opts.ParseCompoundStmt("<stdin>", readline)
	switch {
	case eof && text.Len() == 0:
		return io.EOF
	case eof, aborted:
		return nil // Ctrl-C (or Ctrl-D inside a statement) drops what was typed
	case err != nil:
		src := []byte(text.String())
		fmt.Fprintln(s.env.Stderr, script.FormatError(err, func(string) []byte { return src }))
		return nil
	}
	if len(f.Stmts) == 0 {
		return nil
	}
	s.exec(f, []byte(text.String()))
	return nil
}

// exec runs a parsed statement with its own context, which Ctrl-C cancels
// together with the thread.
func (s *console) exec(f *syntax.File, src []byte) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var interrupted bool
	thread.SetContext(s.th, ctx)
	s.mu.Lock()
	s.cancel = func() {
		interrupted = true
		cancel()
		s.th.Cancel("interrupted")
	}
	s.mu.Unlock()

	var v starlark.Value
	var err error
	thread.KeepSyntax(s.th, f) // parallel() freezes only the globals its branches use
	if expr := soleExpr(f); expr != nil {
		v, err = starlark.EvalExprOptions(f.Options, s.th, expr, s.globals)
	} else {
		err = starlark.ExecREPLChunk(f, s.th, s.globals)
	}

	s.mu.Lock()
	s.cancel = nil
	wasInterrupted := interrupted
	s.mu.Unlock()
	s.th.Uncancel()

	switch {
	case wasInterrupted:
		fmt.Fprintln(s.env.Stderr, s.keepPartial("interrupted", err))
	case err != nil:
		fmt.Fprintln(s.env.Stderr, script.FormatError(err, func(string) []byte { return src }))
		if kept := s.keepPartial("", err); kept != "" {
			fmt.Fprintln(s.env.Stderr, kept)
		}
	case v != nil && v != starlark.None:
		s.globals["_"] = v
		fmt.Fprintln(s.env.Stdout, echo(v))
	}
}

// echo is how the session shows an expression's value: its short form (a
// result's one-line summary), and text such as table() returns as it would
// print, not as a quoted string full of \n.
func echo(v starlark.Value) string {
	if str, ok := v.(starlark.String); ok && strings.Contains(string(str), "\n") {
		return string(str)
	}
	return v.String()
}

// soleExpr returns the expression of a statement that is only one.
func soleExpr(f *syntax.File) syntax.Expr {
	if len(f.Stmts) == 1 {
		if stmt, ok := f.Stmts[0].(*syntax.ExprStmt); ok {
			return stmt.X
		}
	}
	return nil
}

// readHistory loads the history file, if there is one.
func (s *console) readHistory() {
	if s.history == "" {
		return
	}
	if f, err := os.Open(s.history); err == nil {
		s.line.ReadHistory(f)
		f.Close()
	}
}

// saveHistory writes the history file, creating its directory; a failure
// is reported once and then ignored, since the session works without it.
func (s *console) saveHistory() {
	if s.history == "" {
		return
	}
	err := os.MkdirAll(filepath.Dir(s.history), 0o700)
	var f *os.File
	if err == nil {
		f, err = os.CreateTemp(filepath.Dir(s.history), ".history-*")
	}
	if err == nil {
		_, err = s.line.WriteHistory(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), s.history)
		} else {
			os.Remove(f.Name())
		}
	}
	if err != nil {
		fmt.Fprintf(s.env.Stderr, "netscript: history not kept: %v\n", err)
		s.history = ""
	}
}
