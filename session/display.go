package session

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"netscript/engine/client"
	"netscript/session/progress"
)

// progress returns the client's progress callback, or nil.
func (s *Session) progress() func(client.Progress) {
	if s.Progress == nil {
		return nil
	}
	return s.Progress.Test
}

// interim returns the client's interim callback: OnInterim, if set, then
// the display: shown if set, else the session's (interimShown).
func (s *Session) interim(shown func(client.Interim)) func(client.Interim) {
	if shown == nil {
		shown = s.interimShown()
	}
	if s.OnInterim != nil {
		return alsoInterim(s.OnInterim, shown)
	}
	return shown
}

// alsoInterim returns a callback that gives each interim sample to first
// and then, if set, to shown (the live display).
func alsoInterim(first, shown func(client.Interim)) func(client.Interim) {
	return func(i client.Interim) {
		first(i)
		if shown != nil {
			shown(i)
		}
	}
}

// interimShown is the session's display of interim samples: Progress if
// it shows them itself; else plain lines on Stderr when stderr is a
// terminal (or a Reporter is drawing there); else nil, and the samples are
// only kept in result.interim.
func (s *Session) interimShown() func(client.Interim) {
	if r, ok := s.Progress.(progress.InterimReporter); ok {
		return r.Interim
	}
	if s.Progress == nil && !isTerminalWriter(s.Stderr) {
		return nil
	}
	return func(i client.Interim) {
		if s.Progress != nil {
			s.Progress.Done() // clear the status line; it comes back on the next report
		}
		fmt.Fprintln(s.Stderr, progress.InterimLine(i))
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
