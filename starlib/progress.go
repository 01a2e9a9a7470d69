package starlib

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"netscript/engine/client"
)

// Reporter shows the progress of long work while it runs (on stderr when
// stderr is a terminal). Env.Progress holds one; nil means no display.
type Reporter interface {
	// Test reports a running test's counts so far.
	Test(p client.Progress)
	// Iteration reports that iteration k of at most max is starting
	// (confidence() and compare()).
	Iteration(what string, k, max int)
	// Done says the current test ended, so a live line can be cleared.
	Done()
}

// progressOf returns the client's progress callback for env, or nil.
func progressOf(env *Env) func(client.Progress) {
	if env.Progress == nil {
		return nil
	}
	return env.Progress.Test
}

// InterimReporter is a Reporter that also shows interim results (the
// interval option) its own way. A Reporter that is not one gets them as
// plain lines between its status lines.
type InterimReporter interface {
	Interim(i client.Interim)
}

// interimOf returns the client's interim callback for env: env.Progress if
// it shows interim results itself; else plain lines on env.Stderr when
// stderr is a terminal (or a Reporter is drawing there); else nil, and the
// samples are only kept in result.interim.
func interimOf(env *Env) func(client.Interim) {
	if r, ok := env.Progress.(InterimReporter); ok {
		return r.Interim
	}
	if env.Progress == nil && !isTerminalWriter(env.Stderr) {
		return nil
	}
	return func(i client.Interim) {
		if env.Progress != nil {
			env.Progress.Done() // clear the status line; it comes back on the next report
		}
		fmt.Fprintln(env.Stderr, InterimLine(i))
	}
}

// InterimLine formats an interim result as netperf's demo mode does, with
// the test's name and its time into the test instead of the epoch:
// "Interim result: 17749.97 10^6bits/s over 0.200 seconds ending at 0.400 s (TCP_STREAM)".
func InterimLine(i client.Interim) string {
	s := fmt.Sprintf("Interim result: %.2f %s over %.3f seconds ending at %.3f s (%s", i.Throughput, i.Units, i.Interval, i.T, i.Test)
	if i.Brand != "" {
		s += fmt.Sprintf(" %q", i.Brand)
	}
	return s + ")"
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
