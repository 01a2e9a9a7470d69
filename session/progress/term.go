package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"netscript/engine/client"
)

// TermProgress is the Reporter for a terminal: one status line on stderr,
// rewritten in place as a test runs ("TCP_RR  3.2 s of 10.0 s  52311.40
// Trans/s  confidence: iteration 2 of 10") and erased when the test ends,
// so nothing of it stays in the output. Install it only when the stream is
// a terminal.
type TermProgress struct {
	w     io.Writer
	width int

	mu    sync.Mutex
	iter  string // "confidence: iteration 2 of 10" until the test it announces ends
	shown bool   // a status line is on the screen
}

var _ Reporter = (*TermProgress)(nil)

// NewTermProgress returns a reporter drawing on w, a terminal width columns
// wide (80 when width is 0 or less).
func NewTermProgress(w io.Writer, width int) *TermProgress {
	if width <= 0 {
		width = 80
	}
	return &TermProgress{w: w, width: width}
}

// Test shows a running test's progress.
func (p *TermProgress) Test(pr client.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(progressLine(pr, p.iter))
}

// Iteration announces iteration k of at most max of what (confidence(),
// compare()); the test that follows shows it. max <= 0 withdraws it.
func (p *TermProgress) Iteration(what string, k, max int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if max <= 0 {
		p.iter = ""
		return
	}
	p.iter = fmt.Sprintf("%s: iteration %d of %d", what, k, max)
	p.draw(p.iter)
}

// Done erases the status line: the test it showed has ended.
func (p *TermProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.iter = ""
	if p.shown {
		io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// draw replaces the status line with s, cut to the terminal's width so it
// never wraps (a wrapped line cannot be rewritten in place).
func (p *TermProgress) draw(s string) {
	if len(s) > p.width-1 {
		s = s[:p.width-1]
	}
	io.WriteString(p.w, "\r"+s+"\x1b[K")
	p.shown = true
}

// progressLine formats one snapshot: the test (and brand), elapsed of
// total, throughput so far, and the iteration when there is one.
func progressLine(pr client.Progress, iter string) string {
	parts := []string{pr.Test}
	if pr.Brand != "" {
		parts[0] += fmt.Sprintf(" %q", pr.Brand)
	}
	if pr.Total > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s", progressSeconds(pr.Elapsed), progressSeconds(pr.Total)))
	} else {
		parts = append(parts, fmt.Sprintf("%s, %d transactions", progressSeconds(pr.Elapsed), pr.Transactions))
	}
	parts = append(parts, fmt.Sprintf("%.2f %s", pr.Throughput, pr.Units))
	if pr.Retransmits != nil {
		parts = append(parts, fmt.Sprintf("retr %d", *pr.Retransmits))
	}
	if iter != "" {
		parts = append(parts, iter)
	}
	return strings.Join(parts, "  ")
}

func progressSeconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
