package server

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// What the daemon logs is bounded: a flood of broken or hostile peers, each
// ending its session with a line, must not flood the operator's log (or
// disk) as well, in lines or in bytes.
const (
	logLinesPerSecond = 20
	logBytesPerSecond = 16 << 10
	// logLineMax bounds one line; a longer one is cut and says so.
	logLineMax = 1024
)

// floodGate passes at most perSecond writes (log lines) and perSecondBytes
// bytes a second to w and counts the rest; the first line of a later
// second is preceded by how many were left out. A line longer than
// lineMax is cut to it.
type floodGate struct {
	w              io.Writer
	perSecond      int
	perSecondBytes int
	lineMax        int
	prefix         string // begins the line on lines left out, as the log's own lines

	mu      sync.Mutex
	window  time.Time
	n       int
	bytes   int
	dropped int
}

// newFloodGate is the daemon's gate in front of w.
func newFloodGate(w io.Writer) *floodGate {
	return &floodGate{w: w, perSecond: logLinesPerSecond, perSecondBytes: logBytesPerSecond, lineMax: logLineMax}
}

func (g *floodGate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now := time.Now(); now.Sub(g.window) >= time.Second {
		if g.dropped > 0 {
			fmt.Fprintf(g.w, "%s%d more lines were not logged (at most %d lines and %d bytes a second)\n",
				g.prefix, g.dropped, g.perSecond, g.perSecondBytes)
		}
		g.window, g.n, g.bytes, g.dropped = now, 0, 0, 0
	}
	line := p
	if g.lineMax > 0 && len(line) > g.lineMax {
		cut := g.lineMax
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = append(line[:cut:cut], fmt.Sprintf("... (line cut: %d bytes)\n", len(p))...)
	}
	if g.n >= g.perSecond || (g.perSecondBytes > 0 && g.bytes+len(line) > g.perSecondBytes) {
		g.dropped++
		return len(p), nil
	}
	g.n++
	g.bytes += len(line)
	if _, err := g.w.Write(line); err != nil {
		return 0, err
	}
	return len(p), nil
}

// clipMax is how much of a string a client sent the daemon quotes back in
// a log line or an Error.
const clipMax = 64

// clip quotes a string a client sent for a log line or a reply: at most
// clipMax bytes of it, and its length when it is longer.
func clip(s string) string {
	if len(s) <= clipMax {
		return strconv.Quote(s)
	}
	cut := clipMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// replyMax bounds the message of an Error the daemon sends: whatever the
// error quotes of the client's own request, the reply stays short.
const replyMax = 512

// clipReply cuts an error's text to replyMax bytes.
func clipReply(msg string) string {
	if len(msg) <= replyMax {
		return msg
	}
	cut := replyMax
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "... (" + strconv.Itoa(len(msg)) + " bytes)"
}
