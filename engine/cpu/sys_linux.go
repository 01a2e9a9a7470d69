package cpu

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The Linux sources this package reads.
const (
	procStatPath = "/proc/stat"
	onlinePath   = "/sys/devices/system/cpu/online"
	presentPath  = "/sys/devices/system/cpu/present"
)

// readProcStat reads and parses /proc/stat.
func readProcStat() (Snapshot, error) {
	data, err := os.ReadFile(procStatPath)
	if err != nil {
		return Snapshot{}, fmt.Errorf("cpu: read %s: %w", procStatPath, err)
	}
	return ParseProcStat(data)
}

// processTime is getrusage(RUSAGE_SELF).
func processTime() (CPUTime, error) { return rusage(unix.RUSAGE_SELF) }

// threadTime is getrusage(RUSAGE_THREAD) for the calling thread.
func threadTime() (CPUTime, error) { return rusage(unix.RUSAGE_THREAD) }

func rusage(who int) (CPUTime, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return CPUTime{}, fmt.Errorf("getrusage: %w", err)
	}
	return CPUTime{User: durationOf(ru.Utime), System: durationOf(ru.Stime)}, nil
}

func durationOf(tv unix.Timeval) time.Duration { return time.Duration(tv.Nano()) }

// threadID is the kernel's id of the calling thread, for messages.
func threadID() int { return unix.Gettid() }

// setAffinity restricts the calling thread (tid 0) to the one CPU.
func setAffinity(cpu int) error {
	set := unix.NewCPUSet(max(cpu+1, 1024))
	set.Set(cpu)
	err := unix.SchedSetaffinityDynamic(0, set)
	switch {
	case errors.Is(err, unix.EINVAL):
		return fmt.Errorf("sched_setaffinity: %w (is the CPU outside this process's cpuset?)", err)
	case err != nil:
		return fmt.Errorf("sched_setaffinity: %w", err)
	}
	return nil
}

// getAffinity reads the calling thread's CPU set, growing the mask until it
// is as large as the kernel's.
func getAffinity() ([]int, error) {
	for n := 1024; ; n *= 2 {
		set := unix.NewCPUSet(n)
		err := unix.SchedGetaffinityDynamic(0, set)
		if errors.Is(err, unix.EINVAL) && n < maxCPUs {
			continue // the kernel's mask is larger than ours
		}
		if err != nil {
			return nil, fmt.Errorf("sched_getaffinity: %w", err)
		}
		var cpus []int
		for c := range n {
			if set.IsSet(c) {
				cpus = append(cpus, c)
			}
		}
		return cpus, nil
	}
}

// readOnline lists the online CPUs.
func readOnline() ([]int, error) { return readCPUListFile(onlinePath) }

// readPresent lists the CPUs that exist, online or not.
func readPresent() ([]int, error) { return readCPUListFile(presentPath) }

func readCPUListFile(path string) ([]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	cpus, err := ParseCPUList(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cpus, nil
}
