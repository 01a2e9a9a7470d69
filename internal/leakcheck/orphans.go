package leakcheck

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readyTimeout bounds how long KillRerun waits for the re-run to say it
// is ready.
const readyTimeout = 60 * time.Second

// Alive reports whether pid is a process that still runs: one that has
// exited, reaped or not (a zombie), is gone.
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	live, _, ok := parseStat(b)
	return ok && live
}

// parseStat reads the state and the parent's pid from the text of
// /proc/PID/stat: live is false for a zombie or a dead process.
func parseStat(b []byte) (live bool, ppid int, ok bool) {
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return false, 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return false, 0, false
	}
	switch f[0] {
	case "Z", "X", "x":
		return false, ppid, true
	}
	return true, ppid, true
}

// KillRerun is for a test that its process's death does not leave what
// it started running. It runs this test binary again, the test named test
// alone, with env ("NAME=value") added: the re-run starts what is to be
// checked, prints a line beginning with ready and waits. KillRerun lists
// the processes the re-run has started by then, kills it with SIGKILL, as
// a signal or -test.timeout would end a test binary (none of its cleanups
// run), and returns the rest of that line and the processes. The re-run's
// temporary files (t.TempDir) are made inside t's and go with them. It
// fails t, killing the processes, when the line does not come within a
// minute.
func KillRerun(t testing.TB, test, env, ready string) (rest string, started []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.timeout=120s")
	// What the re-run puts in its temporary directories, which its
	// cleanup never removes, goes into t's, which t's cleanup does.
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), env)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("re-run %s: %v", test, err)
	}
	said := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if r, ok := strings.CutPrefix(sc.Text(), ready); ok {
				said <- r
				return
			}
		}
		close(said)
	}()
	var ok bool
	select {
	case rest, ok = <-said:
	case <-time.After(readyTimeout):
	}
	started = Descendants(cmd.Process.Pid)
	cmd.Process.Kill()
	cmd.Wait()
	if !ok {
		Outlived(started, 0)
		t.Fatalf("the re-run of %s did not print %q within %v", test, ready, readyTimeout)
	}
	return rest, started
}

// Outlived waits up to d for the processes pids to end and returns those
// that did not, once it has killed them (SIGKILL).
func Outlived(pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, p := range pids {
			if Alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			for _, p := range left {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			return left
		}
		time.Sleep(5 * time.Millisecond)
	}
}
