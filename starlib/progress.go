package starlib

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"netscript/engine/client"
	"netscript/session/progress"
)

// progressOf returns the client's progress callback for env, or nil.
func progressOf(env *Env) func(client.Progress) {
	if env.Progress == nil {
		return nil
	}
	return env.Progress.Test
}

// interimOf returns the client's interim callback for env: env.Progress if
// it shows interim results itself; else plain lines on env.Stderr when
// stderr is a terminal (or a Reporter is drawing there); else nil, and the
// samples are only kept in result.interim.
func interimOf(env *Env) func(client.Interim) {
	if env.OnInterim != nil {
		return alsoInterim(env.OnInterim, interimShown(env))
	}
	return interimShown(env)
}

// interimShown is interimOf without Env.OnInterim.
func interimShown(env *Env) func(client.Interim) {
	if r, ok := env.Progress.(progress.InterimReporter); ok {
		return r.Interim
	}
	if env.Progress == nil && !isTerminalWriter(env.Stderr) {
		return nil
	}
	return func(i client.Interim) {
		if env.Progress != nil {
			env.Progress.Done() // clear the status line; it comes back on the next report
		}
		fmt.Fprintln(env.Stderr, progress.InterimLine(i))
	}
}

// isTerminalWriter reports whether w is a terminal.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
