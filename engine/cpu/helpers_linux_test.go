package cpu

import (
	"runtime"
	"time"
)

// onLockedThread runs f on a new goroutine locked to its own OS thread and
// returns f's result. The goroutine exits still locked, so the Go runtime
// discards the thread and any binding f made dies with it.
func onLockedThread[T any](f func() T) T {
	ch := make(chan T)
	go func() {
		runtime.LockOSThread()
		ch <- f()
	}()
	return <-ch
}

// spin keeps the calling thread busy for d of wall time and returns a value
// so that the loop is not optimised away.
func spin(d time.Duration) uint64 {
	var x uint64 = 1
	for start := time.Now(); time.Since(start) < d; {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}
