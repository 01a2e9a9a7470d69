// Package progress shows tests while they run: the Reporter interface a
// session (session.Session.Progress) reports to, TermProgress,
// the status line drawn on a terminal, and InterimLine, netperf's demo-mode
// line for an interim result.
package progress

import (
	"fmt"

	"netscript/engine/client"
)

// Reporter shows the progress of long work while it runs (on stderr when
// stderr is a terminal). session.Session.Progress holds one; nil means no display.
type Reporter interface {
	// Test reports a running test's counts so far.
	Test(p client.Progress)
	// Iteration reports that iteration k of at most max is starting
	// (confidence() and compare()).
	Iteration(what string, k, max int)
	// Done says the current test ended, so a live line can be cleared.
	Done()
}

// InterimReporter is a Reporter that also shows interim results (the
// interval option) its own way. A Reporter that is not one gets them as
// plain lines between its status lines.
type InterimReporter interface {
	Interim(i client.Interim)
}

// InterimLine formats an interim result as netperf's demo mode does, with
// the test's name and its time into the test instead of the epoch:
// "Interim result: 17749.97 10^6bits/s over 0.200 seconds ending at 0.400 s (TCP_STREAM)".
func InterimLine(i client.Interim) string {
	s := fmt.Sprintf("Interim result: %.2f %s over %.3f seconds ending at %.3f s", i.Throughput, i.Units, i.Interval, i.T)
	if i.Retransmits != nil && i.Cwnd != nil {
		s += fmt.Sprintf(", retr %d cwnd %d", *i.Retransmits, *i.Cwnd)
	}
	s += " (" + i.Test
	if i.Brand != "" {
		s += fmt.Sprintf(" %q", i.Brand)
	}
	return s + ")"
}
