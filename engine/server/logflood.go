package server

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// logLinesPerSecond bounds what the daemon logs: a flood of broken or
// hostile peers, each ending its session with a line, must not flood the
// operator's log (or disk) as well.
const logLinesPerSecond = 20

// floodGate passes at most perSecond writes (log lines) a second to w and
// counts the rest; the first line of a later second is preceded by how many
// were left out.
type floodGate struct {
	w         io.Writer
	perSecond int

	mu      sync.Mutex
	window  time.Time
	n       int
	dropped int
}

func (g *floodGate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now := time.Now(); now.Sub(g.window) >= time.Second {
		if g.dropped > 0 {
			fmt.Fprintf(g.w, "netscript serve: %d more lines were not logged (at most %d a second)\n", g.dropped, g.perSecond)
		}
		g.window, g.n, g.dropped = now, 0, 0
	}
	if g.n >= g.perSecond {
		g.dropped++
		return len(p), nil
	}
	g.n++
	return g.w.Write(p)
}
