package childproc_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/childproc"
	"netscript/internal/leakcheck"
)

// deadline bounds every wait for an event in these tests.
const deadline = 30 * time.Second

// parentEnv, set in a re-run of this test binary, makes TestDiesWithParent
// the parent to be killed: it starts `sleep 300` the way the variable
// names ("exec" or "childproc"), prints the sleep's pid and waits.
const parentEnv = "CHILDPROC_TEST_PARENT"

// TestDiesWithParent kills a process that started a child (SIGKILL: none
// of its cleanups run) and checks that the child went with it when it was
// started by Start, and did not when it was started by exec alone.
func TestDiesWithParent(t *testing.T) {
	if how := os.Getenv(parentEnv); how != "" {
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		start := childproc.Start
		if how == "exec" {
			start = (*exec.Cmd).Start
		}
		if err := start(cmd); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("CHILD %d\n", cmd.Process.Pid)
		time.Sleep(time.Hour) // until killed; -test.timeout ends it otherwise
		return
	}
	for _, c := range []struct {
		how      string
		survives bool
	}{
		{"exec", true},
		{"childproc", false},
	} {
		t.Run(c.how, func(t *testing.T) {
			_, started := leakcheck.KillRerun(t, "TestDiesWithParent", parentEnv+"="+c.how, "CHILD ")
			if len(started) != 1 {
				leakcheck.Outlived(started, 0)
				t.Fatalf("the parent had started %v, not one sleep", started)
			}
			if !c.survives {
				if left := leakcheck.Outlived(started, deadline); len(left) > 0 {
					t.Fatalf("the child %v still ran %v after its parent was killed", left, deadline)
				}
				return
			}
			// Nothing is on its way to kill it: this control shows that
			// the parent's death alone does not.
			if left := leakcheck.Outlived(started, 0); len(left) == 0 {
				t.Fatalf("the child %v, started by exec alone, died with its parent: the test shows nothing", started)
			}
		})
	}
}

// TestOutlivesLockedCaller: a child started from a goroutine that locks
// its thread and returns (so the thread ends) still runs once the thread
// has gone; with Pdeathsig set on the caller's thread it would be killed.
func TestOutlivesLockedCaller(t *testing.T) {
	var cmd *exec.Cmd
	var tid int
	for try := 0; try < 3 && cmd == nil; try++ {
		c := exec.Command("sleep", "300")
		got := make(chan int, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if err := childproc.Start(c); err != nil {
				t.Error(err)
				got <- 0
				return
			}
			got <- unix.Gettid()
		}()
		id := <-got
		if id == 0 {
			return
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		// The main thread is never ended, only parked; try another.
		if id != os.Getpid() {
			cmd, tid = c, id
		}
	}
	if cmd == nil {
		t.Fatal("every try ran on the main thread, which never ends")
	}
	task := fmt.Sprintf("/proc/self/task/%d", tid)
	for end := time.Now().Add(deadline); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(task); os.IsNotExist(err) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the caller's locked thread %d did not end within %v", tid, deadline)
		}
	}
	// The kernel sends a parent-death signal as the thread ends; the child
	// acts on it once it runs. Two seconds is ample for that on any
	// machine, and waiting for it cannot fail a correct Start.
	if left := leakcheck.Outlived([]int{cmd.Process.Pid}, lingering); len(left) == 0 {
		t.Fatalf("the child %d died when the thread that called Start ended", cmd.Process.Pid)
	}
}

// lingering is how long TestOutlivesLockedCaller watches a child that must
// not die.
const lingering = 2 * time.Second

// TestStartError: a command that cannot start is Start's error, as it is
// cmd.Start's.
func TestStartError(t *testing.T) {
	err := childproc.Start(exec.Command("/nonexistent/netscript-childproc-test"))
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("Start of a missing program: %v", err)
	}
}

// TestSparesOthersOnItsThread: children forked with Pdeathsig on the
// caller's thread (as exec does for netns.Command's callers) still run
// after many Start calls, whose goroutines the runtime often schedules on
// that same thread; a Start that ended its thread would kill them.
func TestSparesOthersOnItsThread(t *testing.T) {
	var pids []int
	for range 20 {
		c := exec.Command("sleep", "300")
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		pids = append(pids, c.Process.Pid)
		short := exec.Command("true")
		if err := childproc.Start(short); err != nil {
			t.Fatal(err)
		}
		short.Wait()
	}
	if left := leakcheck.Outlived(pids, lingering); len(left) != len(pids) {
		t.Fatalf("%d of the %d children forked beside Start's were killed", len(pids)-len(left), len(pids))
	}
}
