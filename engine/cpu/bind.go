package cpu

import (
	"fmt"
	"slices"
)

// NoSuchCPUError is the error for a CPU number that cannot be used because
// the CPU does not exist or is offline; its message is meant for the user who
// asked for it (a bad cpu= option).
type NoSuchCPUError struct {
	CPU     int   // the CPU asked for
	Offline bool  // the CPU exists but is offline
	Online  []int // the CPUs that are online
}

// Error says which CPU was asked for and which CPUs can be used instead.
func (e *NoSuchCPUError) Error() string {
	if e.Offline {
		return fmt.Sprintf("cpu %d is offline: the online CPUs are %s", e.CPU, FormatCPUList(e.Online))
	}
	return fmt.Sprintf("cpu %d does not exist: this machine has CPUs %s", e.CPU, FormatCPUList(e.Online))
}

// Online lists the CPUs that are online now, sorted, from
// /sys/devices/system/cpu/online.
func Online() ([]int, error) {
	cpus, err := readOnline()
	if err != nil {
		return nil, fmt.Errorf("cpu: list online CPUs: %w", err)
	}
	return cpus, nil
}

// Check reports whether cpu can be bound to: nil if it is online, a
// *NoSuchCPUError if it does not exist or is offline (for example "cpu 7 does
// not exist: this machine has CPUs 0-1"), or the error from reading the CPU
// lists.
func Check(cpu int) error {
	online, err := Online()
	if err != nil {
		return err
	}
	if slices.Contains(online, cpu) {
		return nil
	}
	e := &NoSuchCPUError{CPU: cpu, Online: online}
	if present, err := readPresent(); err == nil && slices.Contains(present, cpu) {
		e.Offline = true
	}
	return e
}

// Bind pins the calling OS thread, and only it, to one CPU, so that the
// thread that does a test's work stays where it was put (netperf's -T).
// The caller must hold runtime.LockOSThread before calling Bind and for as
// long as the binding should hold; see the package comment for how to give
// the thread back. A CPU that does not exist or is offline gives the
// *NoSuchCPUError from [Check]; a CPU the kernel refuses (for example one
// outside this process's cpuset) gives an error naming the thread and CPU.
func Bind(cpu int) error {
	if err := Check(cpu); err != nil {
		return err
	}
	if err := setAffinity(cpu); err != nil {
		return fmt.Errorf("cpu: bind thread %d to cpu %d: %w", threadID(), cpu, err)
	}
	return nil
}

// Affinity returns the CPUs the calling OS thread may run on, sorted. Like
// [Bind] it is only meaningful while the goroutine is locked to its thread.
func Affinity() ([]int, error) {
	cpus, err := getAffinity()
	if err != nil {
		return nil, fmt.Errorf("cpu: read affinity of thread %d: %w", threadID(), err)
	}
	return cpus, nil
}
