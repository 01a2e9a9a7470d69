package workload

import (
	"sync/atomic"
	"time"

	"netscript/engine/sock"
)

// maxDebt bounds how far a paced loop that fell behind (a stall, a slow
// peer) may catch up by running unpaced: at most this much of its schedule
// is made up at once; anything older is forgiven.
const maxDebt = 100 * time.Millisecond

// Pacer spaces units of work (transactions or sends) evenly at a rate, as
// netperf's -w/-b do. It keeps an absolute schedule (unit k is due at
// k/rate from the start), so the time a sleep oversleeps is made up by the
// next units and the achieved rate stays the asked one. It sleeps with raw
// nanosleep calls and allocates nothing after NewPacer.
type Pacer struct {
	period time.Duration
	due    time.Duration // when the next unit is due, from the loop's start
	sleep  sock.Sleeper
}

// NewPacer returns a pacer for rate units per second, or nil (no pacing) if
// rate is not positive.
func NewPacer(rate float64) *Pacer {
	if !(rate > 0) {
		return nil
	}
	p := time.Duration(float64(time.Second) / rate)
	if p < 1 {
		p = 1
	}
	return &Pacer{period: p}
}

// Wait blocks until the next unit is due. start is the loop's start; the
// wait gives up, returning false, when the offset dead from start comes
// first or stop is set. It returns the offset from start at which it
// returned.
func (p *Pacer) Wait(start time.Time, dead time.Duration, stop *atomic.Bool) (time.Duration, bool) {
	for {
		now := time.Since(start)
		if now >= dead || stop != nil && stop.Load() {
			return now, false
		}
		left := p.due - now
		if left <= 0 {
			p.due += p.period
			if now-p.due > maxDebt {
				p.due = now - maxDebt
			}
			return now, true
		}
		if until := dead - now; left > until {
			left = until
		}
		p.sleep.Sleep(left)
	}
}
