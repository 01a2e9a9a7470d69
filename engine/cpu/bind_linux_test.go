package cpu

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// taskStatus returns a field of /proc/self/task/<tid>/status.
func taskStatus(tid int, field string) (string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", tid))
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("no %s in status of thread %d", field, tid)
}

// taskProcessor returns the CPU the thread last ran on (field 39 of
// /proc/self/task/<tid>/stat).
func taskProcessor(tid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		return 0, err
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // f[0] is field 3
	if len(f) < 37 {
		return 0, fmt.Errorf("short stat for thread %d", tid)
	}
	return strconv.Atoi(f[36])
}

// usableCPUs is the online CPUs a fresh thread of this process may use.
func usableCPUs(t *testing.T) []int {
	t.Helper()
	online, err := Online()
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		cpus []int
		err  error
	}
	r := onLockedThread(func() (r result) {
		r.cpus, r.err = Affinity()
		return r
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	allowed := r.cpus
	var cpus []int
	for _, c := range online {
		if slices.Contains(allowed, c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) == 0 {
		t.Fatalf("no usable CPU: online %v, allowed %v", online, allowed)
	}
	return cpus
}

func TestOnline(t *testing.T) {
	online, err := Online()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatCPUList(online); got != strings.TrimSpace(string(raw)) {
		t.Fatalf("Online() = %v (%s), /sys says %q", online, got, raw)
	}
}

// TestBindEachCPU binds a locked thread to each usable CPU in turn and checks
// the binding three ways: Affinity, Cpus_allowed_list in the thread's status
// file, and the CPU the thread is found running on.
func TestBindEachCPU(t *testing.T) {
	for _, c := range usableCPUs(t) {
		t.Run(fmt.Sprintf("cpu%d", c), func(t *testing.T) {
			err := onLockedThread(func() error {
				tid := unix.Gettid()
				if err := Bind(c); err != nil {
					return err
				}
				got, err := Affinity()
				if err != nil {
					return err
				}
				if !slices.Equal(got, []int{c}) {
					return fmt.Errorf("Affinity after Bind(%d) = %v", c, got)
				}
				list, err := taskStatus(tid, "Cpus_allowed_list")
				if err != nil {
					return err
				}
				if list != strconv.Itoa(c) {
					return fmt.Errorf("thread %d Cpus_allowed_list = %q after Bind(%d)", tid, list, c)
				}
				spin(5 * time.Millisecond) // run a little so the scheduler has moved us
				p, err := taskProcessor(tid)
				if err != nil {
					return err
				}
				if p != c {
					return fmt.Errorf("thread %d bound to cpu %d is running on cpu %d", tid, c, p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestBindNoSuchCPU checks the message a user's bad cpu= option produces and
// that a failed Bind leaves the thread's affinity alone.
func TestBindNoSuchCPU(t *testing.T) {
	online, err := Online()
	if err != nil {
		t.Fatal(err)
	}
	missing := 7
	for slices.Contains(online, missing) {
		missing++
	}
	tests := []struct {
		name string
		cpu  int
	}{
		{"beyond the last CPU", missing},
		{"negative", -1},
		{"beyond any cpu mask", 1 << 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := fmt.Sprintf("cpu %d does not exist: this machine has CPUs %s", tc.cpu, FormatCPUList(online))
			if err := Check(tc.cpu); err == nil || err.Error() != want {
				t.Errorf("Check(%d) = %v, want %q", tc.cpu, err, want)
			}
			type result struct {
				before, after []int
				err           error
			}
			r := onLockedThread(func() (r result) {
				r.before, _ = Affinity()
				r.err = Bind(tc.cpu)
				r.after, _ = Affinity()
				return r
			})
			var nse *NoSuchCPUError
			if !errors.As(r.err, &nse) || nse.CPU != tc.cpu || r.err.Error() != want {
				t.Errorf("Bind(%d) = %v, want %q", tc.cpu, r.err, want)
			}
			if len(r.before) == 0 || !slices.Equal(r.before, r.after) {
				t.Errorf("failed Bind changed affinity from %v to %v", r.before, r.after)
			}
		})
	}
}

// TestBindIsPerThread binds one locked thread and checks that another locked
// thread's affinity, read before and after, does not change.
func TestBindIsPerThread(t *testing.T) {
	cpus := usableCPUs(t)
	target := cpus[len(cpus)-1]

	bound := make(chan error)
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Thread A: bind, report, and stay alive (and bound) until B has looked.
		onLockedThread(func() struct{} {
			bound <- Bind(target)
			<-release
			return struct{}{}
		})
	}()

	type view struct {
		before, after []int
		list          string // Cpus_allowed_list after A bound
		err           error
	}
	v := onLockedThread(func() (v view) {
		// Thread B.
		if v.before, v.err = Affinity(); v.err != nil {
			return v
		}
		if v.err = <-bound; v.err != nil {
			return v
		}
		if v.after, v.err = Affinity(); v.err != nil {
			return v
		}
		v.list, v.err = taskStatus(unix.Gettid(), "Cpus_allowed_list")
		return v
	})
	close(release)
	<-done
	if v.err != nil {
		t.Fatal(v.err)
	}
	if !slices.Equal(v.before, v.after) {
		t.Fatalf("binding thread A to cpu %d changed thread B's affinity from %v to %v", target, v.before, v.after)
	}
	if len(cpus) > 1 && slices.Equal(v.after, []int{target}) {
		t.Fatalf("thread B is bound to cpu %d too", target)
	}
	if v.list != FormatCPUList(v.before) {
		t.Fatalf("thread B's Cpus_allowed_list is %q, want %q", v.list, FormatCPUList(v.before))
	}
}
