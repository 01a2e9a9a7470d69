package session

import (
	"context"
	"fmt"
	"runtime/metrics"
	"time"
)

// Limits bound what a script may take of the machine. Each has a flag;
// hitting one ends the script with a line naming the limit and its flag
// (LimitError), and the results measured so far stay in the record. A
// zero field bounds nothing.
type Limits struct {
	Steps         uint64 // Starlark execution steps of each thread (--max-steps)
	MemoryBytes   uint64 // the Go heap of the whole run (--max-memory MB)
	ScriptBytes   int64  // a script or loaded module's size at read (--max-script-size KB)
	PicturePixels int64  // a picture's width times height (--max-picture-pixels)
	PicturePoints int    // the points one picture draws (--max-picture-points)
}

// DefaultLimits are generous: no experiment in scripts/ or the docs comes
// near them, and a runaway script stops long before the machine does.
func DefaultLimits() Limits {
	return Limits{
		Steps:         2_000_000_000,
		MemoryBytes:   2 << 30,
		ScriptBytes:   1 << 20,
		PicturePixels: 10000 * 10000,
		PicturePoints: 1_000_000,
	}
}

// LimitError is a limit a script hit: its words and the flag that raises it.
type LimitError struct {
	What string // "the script took more than 2000000000 steps"
	Flag string // "--max-steps N"
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s; %s raises the limit", e.What, e.Flag)
}

// StepsError is the error of a thread stopped at its step budget.
func (l Limits) StepsError() *LimitError {
	return &LimitError{What: fmt.Sprintf("the script ran more than %d Starlark steps", l.Steps), Flag: "--max-steps N"}
}

// MemoryError is the error of a run stopped at its memory ceiling.
func (l Limits) MemoryError() *LimitError {
	return &LimitError{What: fmt.Sprintf("the script held more than %d MB of memory", l.MemoryBytes>>20), Flag: "--max-memory MB"}
}

// WatchMemory calls stop once if the run's heap grows past MemoryBytes,
// checking every poll until ctx ends. Starlark offers no allocation
// budget, so the heap as runtime/metrics counts it is the measure.
func (l Limits) WatchMemory(ctx context.Context, poll time.Duration, stop func()) {
	if l.MemoryBytes == 0 {
		return
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > l.MemoryBytes {
				stop()
				return
			}
		}
	}()
}
