//go:build !linux

package cpu

import (
	"errors"
	"fmt"
)

// On systems other than Linux the measurements and binding are not
// implemented; every call says so with an error wrapping
// errors.ErrUnsupported.

func unsupported(what string) error {
	return fmt.Errorf("%s: %w on this operating system", what, errors.ErrUnsupported)
}

func readProcStat() (Snapshot, error) { return Snapshot{}, unsupported("cpu: read /proc/stat") }
func processTime() (CPUTime, error)   { return CPUTime{}, unsupported("getrusage") }
func threadTime() (CPUTime, error)    { return CPUTime{}, unsupported("getrusage") }
func threadID() int                   { return 0 }
func setAffinity(int) error           { return unsupported("sched_setaffinity") }
func getAffinity() ([]int, error)     { return nil, unsupported("sched_getaffinity") }
func readOnline() ([]int, error)      { return nil, unsupported("list online CPUs") }
func readPresent() ([]int, error)     { return nil, unsupported("list present CPUs") }
