package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"go.starlark.net/starlark"
	"golang.org/x/sys/unix"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/junit"
	"netscript/record"
	"netscript/repl"
	"netscript/script"
	"netscript/session"
	"netscript/session/progress"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// scriptCommand runs a file, a -c snippet, or stdin; with neither and a
// terminal on stdin and stdout, the interactive session.
func scriptCommand(o flags, args []string) int {
	var sc *session.Script
	switch {
	case o.code != nil:
		sc = &session.Script{Name: "<command-line>", Src: []byte(*o.code)}
	case len(args) > 0:
		var err error
		if sc, err = script.ReadScript(args[0], o.perm.limits.ScriptBytes); err != nil {
			fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
			return exitUsage
		}
		args = args[1:]
	default:
		if isTerminal(os.Stdin) && isTerminal(os.Stdout) {
			if o.record != "" {
				fmt.Fprintln(os.Stderr, "netscript: --record needs a script; an interactive session is not recorded")
				return exitUsage
			}
			if o.jsonLines != "" {
				fmt.Fprintln(os.Stderr, "netscript: --json-lines needs a script; an interactive session writes none")
				return exitUsage
			}
			sess := newSession(o)
			defer sess.Close()
			return repl.Run(sess, repl.Options{})
		}
		src, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintf(os.Stderr, "netscript: read stdin: %v\n", err)
			return exitUsage
		}
		if max := o.perm.limits.ScriptBytes; max > 0 && int64(len(src)) > max {
			fmt.Fprintf(os.Stderr, "netscript: %v\n", &session.LimitError{What: fmt.Sprintf("the script on stdin is larger than %d KB", max>>10), Flag: "--max-script-size KB"})
			return exitUsage
		}
		sc = &session.Script{Name: "<stdin>", Src: src}
	}
	kv, err := script.ParseArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	sc.Args = kv
	o.perm.typedArgs = kv
	code, _ := runScript(sc, o)
	return code
}

// newSession returns the session of this process: version and commit, and
// live progress when stderr is a terminal and --quiet was not given.
func newSession(o flags) *session.Session {
	sess := session.New(version)
	sess.Commit = commit
	sess.Token = o.token
	sess.Target = o.target
	sess.KeepGoing = o.keepGoing
	// The embedded server is this same binary in another process, so its
	// figures are those of a separately started `netscript serve`.
	if exe, err := os.Executable(); err == nil {
		sess.ServerCommand = []string{exe, "serve"}
	}
	if !o.quiet && isTerminal(os.Stderr) {
		sess.Progress = progress.NewTermProgress(os.Stderr, termWidth(os.Stderr))
	}
	return sess
}

// runScript runs sc and returns the exit status and every result its tests
// produced. With --record, the record file is opened before anything runs
// (so a path that cannot be written costs no measurement) and written at
// the end, whatever the end was.
func runScript(sc *session.Script, o flags) (int, []record.RunResult) {
	var out *os.File
	if o.record != "" {
		f, err := session.CreateNamed(o.record, false)
		if err != nil {
			fmt.Fprintf(os.Stderr, "netscript: --record %s: %v\n", o.record, pathErr(err))
			return exitUsage, nil
		}
		out = f
		defer out.Close()
	}

	var junitOut *os.File
	if o.junit != "" {
		f, err := os.OpenFile(o.junit, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "netscript: --junit %s: %v\n", o.junit, pathErr(err))
			return exitUsage, nil
		}
		junitOut = f
		defer junitOut.Close()
	}

	runID := newRunID()
	var jl *jsonLines
	if o.jsonLines != "" {
		var err error
		if jl, err = openJSONLines(o.jsonLines, runID); err != nil {
			fmt.Fprintf(os.Stderr, "netscript: --json-lines %s: %v\n", o.jsonLines, pathErr(err))
			return exitUsage, nil
		}
	}

	sess := newSession(o)
	defer sess.Close()
	sess.Limits = o.perm.limits
	if o.code == nil {
		// A file, stdin or a record's script: what the person allowed.
		sess.Perms = o.perm.permissions(sc, o)
	}
	var rec record.Recorder
	sess.OnResult = rec.Add
	if jl != nil {
		sess.OnResult = func(res *result.Result, err error) {
			rec.Add(res, err)
			jl.Result(res, err)
		}
		sess.OnInterim = jl.Interim
		sess.OnFailed = jl.Failed
		sess.OnCheck = jl.Check
		if o.jsonLines == "-" {
			sess.Stdout = os.Stderr // stdout is the JSON lines'
		}
	}
	var run *record.Run
	if out != nil {
		run = record.NewRun(sc, sess.SysInfo())
		run.ReplayOf = o.replayOf
		run.RunID = runID
		if o.target.Host != "" {
			t := o.target
			run.Target = &t
		}
	}
	if o.target.Host != "" && !o.quiet {
		fmt.Fprintln(os.Stderr, aimedAt(o.target))
	}

	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	th := thread.New("main", sess, ctx)
	interrupted := onInterrupt(func() {
		cancel()
		th.Cancel("interrupted")
	})
	var overMemory atomic.Bool
	sess.Limits.WatchMemory(ctx, 50*time.Millisecond, func() {
		overMemory.Store(true)
		cancel()
		th.Cancel("memory")
	})
	_, err := script.Exec(th, sc)
	if lerr := limitHit(err, sess.Limits, overMemory.Load()); lerr != nil {
		err = lerr
	}
	signal.Reset(os.Interrupt, syscall.SIGTERM)

	code := exitOK
	switch {
	case interrupted.Load():
		code = exitInterrupted
		reportInterrupt(os.Stderr, err)
	case err != nil:
		code = exitScriptError
		fmt.Fprintf(os.Stderr, "netscript: %s\n", escapeTerm(script.FormatError(err, script.Source(sc))))
	case sess.FailureLine() != "":
		// The script ran to its end past failed tests: it says so, and
		// the exit status does, so no one takes the run for a clean one.
		code = exitTestsFailed
		err = errors.New(sess.FailureLine())
		fmt.Fprintf(os.Stderr, "netscript: %s\n", escapeTerm(err.Error()))
	}
	checks := sess.Checks()
	if failed := sess.ChecksFailed(); failed > 0 {
		fmt.Fprintf(os.Stderr, "netscript: %d of %d checks failed\n", failed, len(checks))
		if code == exitOK {
			code = exitCheckFailed
		}
	}
	if junitOut != nil {
		var serr error
		if code == exitScriptError || code == exitInterrupted || code == exitTestsFailed {
			serr = err
			if serr == nil {
				serr = errors.New("interrupted")
			}
		}
		host, _ := os.Hostname()
		jerr := junit.Write(junitOut, junit.Report{Script: sc.Name, Start: start, End: time.Now(),
			Hostname: host, Checks: checks, Err: serr})
		if jerr != nil {
			fmt.Fprintf(os.Stderr, "netscript: --junit %s: %v\n", o.junit, jerr)
			if code == exitOK {
				code = exitScriptError
			}
		}
	}
	if jl != nil {
		if jerr := jl.Close(); jerr != nil {
			fmt.Fprintf(os.Stderr, "netscript: --json-lines %s: %v\n", o.jsonLines, jerr)
			if code == exitOK {
				code = exitScriptError
			}
		}
	}
	results := rec.Results()
	if run != nil {
		run.End, run.Results, run.Checks = time.Now(), results, checks
		switch code {
		case exitCheckFailed:
			run.Status = record.RunChecksFailed
		case exitInterrupted:
			run.Status = record.RunInterrupted
		case exitScriptError:
			run.Status, run.Error = record.RunError, err.Error()
		case exitTestsFailed:
			run.Status, run.Error = record.RunFailed, err.Error()
		}
		if werr := writeRun(out, run); werr != nil {
			fmt.Fprintf(os.Stderr, "netscript: --record %s: %v\n", o.record, werr)
			if code == exitOK {
				code = exitScriptError
			}
		}
	}
	return code, results
}

// limitHit returns the limit a script's error says it hit, in the words
// of the limit and its flag, or nil.
func limitHit(err error, l session.Limits, overMemory bool) error {
	if err == nil {
		return nil
	}
	switch {
	case overMemory:
		return l.MemoryError()
	case strings.Contains(err.Error(), "too many steps"):
		return l.StepsError()
	}
	return nil
}

// writeRun replaces the contents of f with the record.
func writeRun(f *os.File, run *record.Run) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return run.Encode(f)
}

// pathErr drops the path from an *os.PathError, which the message names
// already.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// reportInterrupt says where the script was when Ctrl-C came, and what the
// test that was running had measured until then.
func reportInterrupt(w io.Writer, err error) {
	where := ""
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if f := ee.CallStack[i]; f.Pos.Filename() != "<builtin>" {
				where = " at " + f.Pos.String()
				break
			}
		}
		if n := len(ee.CallStack); n > 0 && ee.CallStack[n-1].Pos.Filename() == "<builtin>" {
			where += " in " + ee.CallStack[n-1].Name
		}
	}
	fmt.Fprintf(w, "netscript: interrupted%s\n", where)
	var te *client.TestError
	if errors.As(err, &te) && te.Partial != nil {
		fmt.Fprintf(w, "netscript: measured before the interrupt: %s\n", values.Summary(te.Partial))
	}
}

// onInterrupt calls f on the first SIGINT or SIGTERM; a second one exits at
// once. The returned flag tells whether it happened.
func onInterrupt(f func()) *atomic.Bool {
	var hit atomic.Bool
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-ch; !ok {
			return
		}
		hit.Store(true)
		f()
		<-ch
		os.Exit(exitInterrupted)
	}()
	return &hit
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// termWidth is the terminal's width in columns, 0 if unknown.
func termWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
