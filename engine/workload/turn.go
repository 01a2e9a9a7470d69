package workload

import (
	"runtime"
	"time"
)

// A data loop blocks in raw system calls while its goroutine holds its
// scheduler slot, so to the Go runtime it looks like a goroutine that
// never stops running. The runtime's monitor (sysmon) preempts such a
// goroutine after 10 ms: it signals the thread, which wakes it out of its
// blocking recv, and a goroutine locked to its thread (every data loop's
// is) is then handed to another thread and back. That is about a hundred
// signals and two hundred thread wake-ups a second that a C server such as
// netserver does not have, and on a machine whose idle CPU wakes slowly
// they make the far end answer faster than netserver would: the far end
// changed the figure.
//
// turn gives the scheduler a turn on the loop's own terms instead: right
// after a unit of work, while the CPU is awake anyway, once the last turn
// is yieldEvery old, which is sooner than the monitor's 10 ms, so it
// never preempts the loop. To keep the clock off the per-transaction path
// it reads the clock only every few units, as many as about checkEvery of
// work takes at the loop's current rate.

// yieldEvery is the longest a data loop runs without a turn: below the
// runtime's forced-preemption limit of 10 ms with room for the monitor's
// sampling and for a unit of work finishing late.
const yieldEvery = 6 * time.Millisecond

// checkEvery is about how often the loop reads the clock.
const checkEvery = time.Millisecond

// maxStride bounds the units of work between two clock reads, so a loop
// whose rate jumps up still checks within a few milliseconds.
const maxStride = 4096

// turn is the state of one loop's turns; the zero value is ready to use.
type turn struct {
	left   uint32        // units of work before the next clock read
	stride uint32        // units of work between clock reads
	base   time.Time     // the loop's clock origin
	seen   time.Duration // when the clock was last read, since base
	gave   time.Duration // when the last turn was given, since base

	clock func() time.Duration // tests: the time since base; nil: the clock
	yield func()               // tests: gives a turn; nil: runtime.Gosched
}

// done notes one unit of work and gives the scheduler a turn when one is
// due. Its cost between clock reads is a decrement and a branch.
func (t *turn) done() {
	if t.left > 1 {
		t.left--
		return
	}
	t.check()
}

// check reads the clock, sets the stride to about checkEvery of work at
// the rate since the last read, and gives a turn if one is due.
func (t *turn) check() {
	if t.stride == 0 {
		t.base = time.Now()
		t.stride, t.left = 1, 1
		t.seen = t.now()
		t.gave = t.seen
		return
	}
	now := t.now()
	if took := now - t.seen; took > 0 {
		s := uint64(t.stride) * uint64(checkEvery) / uint64(took)
		t.stride = uint32(min(max(s, 1), maxStride))
	}
	t.seen, t.left = now, t.stride
	if now-t.gave >= yieldEvery {
		if t.yield != nil {
			t.yield()
		} else {
			runtime.Gosched()
		}
		t.gave = t.now()
	}
}

// now is the time since base.
func (t *turn) now() time.Duration {
	if t.clock != nil {
		return t.clock()
	}
	return time.Since(t.base)
}
