package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
	"golang.org/x/sys/unix"

	"netscript/starlib"
)

// script runs a file, a -c snippet, or stdin.
func script(args []string) int {
	var sc *starlib.Script
	switch {
	case len(args) > 0 && args[0] == "-c":
		if len(args) < 2 {
			fmt.Fprintln(os.Stderr, "netscript: -c needs the code to run")
			return exitUsage
		}
		sc = &starlib.Script{Name: "<command-line>", Src: []byte(args[1])}
		args = args[2:]
	case len(args) > 0 && strings.HasPrefix(args[0], "-"):
		fmt.Fprintf(os.Stderr, "netscript: unknown flag %s\n", args[0])
		usage(os.Stderr)
		return exitUsage
	case len(args) > 0:
		var err error
		if sc, err = starlib.ReadScript(args[0]); err != nil {
			fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
			return exitUsage
		}
		args = args[1:]
	default:
		if isTerminal(os.Stdin) && isTerminal(os.Stdout) {
			return interactive()
		}
		src, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintf(os.Stderr, "netscript: read stdin: %v\n", err)
			return exitUsage
		}
		sc = &starlib.Script{Name: "<stdin>", Src: src}
	}
	kv, err := starlib.ParseArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	sc.Args = kv

	env := starlib.NewEnv(version)
	defer env.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	th := starlib.NewThread("main", env, ctx)
	interrupted := onInterrupt(func() {
		cancel()
		th.Cancel("interrupted")
	})
	_, err = starlib.Exec(th, sc)
	if *interrupted {
		fmt.Fprintln(os.Stderr, "netscript: interrupted")
		return exitInterrupted
	}
	if err != nil {
		reportError(os.Stderr, err)
		return exitScriptError
	}
	return exitOK
}

// onInterrupt calls f on the first SIGINT or SIGTERM; a second one exits at
// once. The returned flag tells whether it happened.
func onInterrupt(f func()) *bool {
	var hit bool
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		hit = true
		f()
		<-ch
		os.Exit(exitInterrupted)
	}()
	return &hit
}

// reportError prints a script's error: one line with the position for an
// error at the top level, the Starlark backtrace for one deeper down.
func reportError(w io.Writer, err error) {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		stack := ee.CallStack
		// A builtin's own frame has no position; skip it.
		if len(stack) > 0 && stack[len(stack)-1].Pos.Filename() == "<builtin>" {
			stack = stack[:len(stack)-1]
		}
		if len(stack) <= 1 {
			pos := ""
			if len(stack) == 1 {
				pos = stack[0].Pos.String() + ": "
			}
			fmt.Fprintf(w, "netscript: %s%s\n", pos, ee.Msg)
			return
		}
		fmt.Fprintf(w, "netscript: %s\n", ee.Backtrace())
		return
	}
	var se syntax.Error
	if errors.As(err, &se) {
		fmt.Fprintf(w, "netscript: %s: %s\n", se.Pos, se.Msg)
		return
	}
	fmt.Fprintf(w, "netscript: %v\n", err)
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// interactive is the REPL; until it exists, say so.
func interactive() int {
	fmt.Fprintln(os.Stderr, "netscript: the interactive session is not built yet; run a script or -c 'CODE'")
	return exitUsage
}
