package cpu

import (
	"fmt"
	"time"
)

// CPUTime is CPU time consumed, split into user and system (kernel) time.
type CPUTime struct {
	User   time.Duration
	System time.Duration
}

// Total is user plus system time.
func (t CPUTime) Total() time.Duration { return t.User + t.System }

// Add returns t + u, for summing the time of several threads.
func (t CPUTime) Add(u CPUTime) CPUTime {
	return CPUTime{User: t.User + u.User, System: t.System + u.System}
}

// Sub returns t − u, the time spent between reading u and reading t.
func (t CPUTime) Sub(u CPUTime) CPUTime {
	return CPUTime{User: t.User - u.User, System: t.System - u.System}
}

// ProcessTime returns the CPU time used so far by all threads of this
// process, living and exited (getrusage RUSAGE_SELF). Unlike the system-wide
// figure it is not disturbed by other work on the machine.
func ProcessTime() (CPUTime, error) {
	t, err := processTime()
	if err != nil {
		return CPUTime{}, fmt.Errorf("cpu: process CPU time: %w", err)
	}
	return t, nil
}

// ThreadTime returns the CPU time used so far by the calling OS thread
// (getrusage RUSAGE_THREAD). The caller must hold runtime.LockOSThread from
// the first reading to the last: otherwise the goroutine may move to another
// thread in between and the difference means nothing.
func ThreadTime() (CPUTime, error) {
	t, err := threadTime()
	if err != nil {
		return CPUTime{}, fmt.Errorf("cpu: thread CPU time: %w", err)
	}
	return t, nil
}
