package netns

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitOutput waits up to 20 s (a loaded machine may be slow to start p)
// for p's output to contain every one of want.
func waitOutput(t testing.TB, p *Proc, want ...string) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		out := p.Output()
		if !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(out, w) }) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v: output %q lacks one of %q", p, out, want)
		}
	}
}

// childPid returns the number after "child " in out.
func childPid(t testing.TB, out string) int {
	t.Helper()
	_, rest, _ := strings.Cut(out, "child ")
	pid, err := strconv.Atoi(strings.Fields(rest + " x")[0])
	if err != nil {
		t.Fatalf("no child pid in %q", out)
	}
	return pid
}

func TestStart(t *testing.T) {
	noLeaks(t)
	ns := New(t, "start")
	var p, group *Proc
	var grandchild int
	t.Run("inner", func(t *testing.T) {
		p = ns.Start(t, "sh", "-c", "echo hello; echo oops >&2; exec sleep 60")
		waitOutput(t, p, "hello\n", "oops\n")
		group = ns.Start(t, "sh", "-c", "sleep 60 & echo child $!; wait")
		grandchild = childPid(t, waitOutput(t, group, "child "))
		select {
		case <-p.Done():
			t.Fatalf("%v exited early: %v", p, p.Err())
		default:
		}
		if p.Err() != nil {
			t.Errorf("Err before exit: %v", p.Err())
		}
	})
	// The subtest's cleanup has killed both, and the second one's child.
	for _, pid := range []int{p.Pid(), group.Pid(), grandchild} {
		waitGone(t, pid)
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("exit status after cleanup: %v", err)
	}

	q := ns.Start(t, "true")
	select {
	case <-q.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("true did not exit")
	}
	if q.Err() != nil {
		t.Errorf("true: %v", q.Err())
	}
	r := ns.Start(t, "sleep", "60")
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, r.Pid())
}

func TestCommandAndRun(t *testing.T) {
	noLeaks(t)
	ns := New(t, "cmd")
	if out := ns.Run(t, "ip", "-o", "link", "show", "lo"); !strings.Contains(out, "LOOPBACK,UP") {
		t.Errorf("lo is not up in %s:\n%s", ns, out)
	}
	if out := ns.Run(t, "ip", "-o", "link", "show"); strings.Count(out, "\n") != 1 {
		t.Errorf("a new namespace should have lo only:\n%s", out)
	}
	f := runFake(t, func(tb testing.TB) { ns.Run(tb, "sh", "-c", "echo badly; exit 3") })
	if !f.Failed() || !strings.Contains(f.Logged(), "exit status 3") || !strings.Contains(f.Logged(), "badly") {
		t.Errorf("a failing Run: failed %v, output %q", f.Failed(), f.Logged())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := ns.Command(ctx, "sh", "-c", "sleep 60 & echo child $!; wait")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	grandchild := childPid(t, line)
	cancel()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err == nil {
			t.Error("a cancelled command exited cleanly")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return after the context was cancelled")
	}
	waitGone(t, grandchild)
}

// TestFailingTestLeavesNothing runs "tests" that fail with t.Fatal or panic
// halfway, with namespaces, a veth, started processes and a process whose
// command was lost, and checks that their cleanup removed everything.
func TestFailingTestLeavesNothing(t *testing.T) {
	for _, how := range []string{"fatal", "panic"} {
		t.Run(how, func(t *testing.T) {
			noLeaks(t)
			var names []string
			var pids []int
			var lost *exec.Cmd
			f := runFake(t, func(tb testing.TB) {
				a, b := New(tb, "fail-a"), New(tb, "fail-b")
				names = append(names, a.Name(), b.Name())
				Link(tb, a, b, "198.18.0.1/24", "198.18.0.2/24")
				p := a.Start(tb, "sleep", "60")
				q := b.Start(tb, "sh", "-c", "sleep 60 & echo child $!; wait")
				pids = append(pids, p.Pid(), q.Pid(), childPid(tb, waitOutput(tb, q, "child ")))
				lost = b.Command(context.Background(), "sleep", "60")
				if err := lost.Start(); err != nil {
					tb.Fatal(err)
				}
				pids = append(pids, lost.Process.Pid)
				if left, _ := Leftovers(); len(left) != 2 {
					tb.Errorf("Leftovers while running: %v", left)
				}
				if how == "panic" {
					panic("on purpose")
				}
				tb.Fatal("on purpose")
			})
			if !f.Failed() || !strings.Contains(f.Logged(), "on purpose") {
				t.Fatalf("the fake test did not fail as planned: %s", f.Logged())
			}
			if !strings.Contains(f.Logged(), "its output:") {
				t.Errorf("the failed test's process output was not logged:\n%s", f.Logged())
			}
			if len(names) != 2 || len(pids) != 4 {
				t.Fatalf("the fake test stopped early:\n%s", f.Logged())
			}
			for _, n := range names {
				if exists(runDir + "/" + n) {
					t.Errorf("namespace %s still exists", n)
				}
			}
			for _, pid := range pids {
				waitGone(t, pid)
			}
			lost.Wait() // reap it: it was killed when its namespace went
		})
	}
}

// TestPanicLeavesNothing panics for real in a child test process and
// checks that the testing package's cleanup removed its namespaces and
// processes.
func TestPanicLeavesNothing(t *testing.T) {
	if os.Getenv("NETNS_TEST_CHILD") == "panic" {
		a, b := New(t, "panic-a"), New(t, "panic-b")
		Link(t, a, b, "2001:2::1/64", "2001:2::2/64")
		p := b.Start(t, "sleep", "60")
		fmt.Printf("CHILD %s %s %d\n", a.Name(), b.Name(), p.Pid())
		panic("on purpose")
	}
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestPanicLeavesNothing$", "-test.v", "-test.timeout=30s")
	cmd.Env = append(os.Environ(), "NETNS_TEST_CHILD=panic")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "panic: on purpose") {
		t.Fatalf("the child did not panic as planned (%v):\n%s", err, out)
	}
	_, line, _ := strings.Cut(string(out), "CHILD ")
	var nsA, nsB string
	var pid int
	if _, err := fmt.Sscan(line, &nsA, &nsB, &pid); err != nil {
		t.Fatalf("no CHILD line (%v):\n%s", err, out)
	}
	prefix := fmt.Sprintf("ns-%d-", cmd.Process.Pid)
	if !strings.HasPrefix(nsA, prefix) || !strings.HasPrefix(nsB, prefix) {
		t.Errorf("the child's namespaces %s and %s lack the prefix %s", nsA, nsB, prefix)
	}
	all, err := listNamespaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range all {
		if strings.HasPrefix(n, prefix) {
			t.Errorf("the child left namespace %s behind", n)
		}
	}
	waitGone(t, pid)
}

func TestSweepStale(t *testing.T) {
	noLeaks(t)
	// A pid that has just exited stands for a crashed test binary.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	pid := dead.Process.Pid
	if alive(pid) {
		t.Skipf("pid %d was reused at once", pid)
	}
	name := fmt.Sprintf("ns-%d-stale", pid)
	if err := runIP("netns", "add", name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if exists(runDir + "/" + name) {
			runIP("netns", "del", name)
		}
	})
	inside := exec.Command("ip", "netns", "exec", name, "sleep", "60")
	if err := inside.Start(); err != nil {
		t.Fatal(err)
	}
	defer inside.Process.Kill()
	ino, err := inode(runDir + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	// Wait until ip has switched to the namespace and exec'd sleep.
	want := fmt.Sprintf("net:[%d]", ino)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", inside.Process.Pid))
		if link == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the process did not enter %s: it is in %q", name, link)
		}
	}
	swept, err := SweepStale()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(swept, name) {
		t.Errorf("SweepStale removed %v, not %s", swept, name)
	}
	if exists(runDir + "/" + name) {
		t.Errorf("%s still exists", name)
	}
	waitGone(t, inside.Process.Pid)
	if err := inside.Wait(); err == nil {
		t.Error("the process in the stale namespace exited by itself")
	}
	// Our own namespaces are never stale.
	own := New(t, "own")
	if swept, _ := SweepStale(); slices.Contains(swept, own.Name()) {
		t.Errorf("SweepStale removed this process's %s", own)
	}
}

func TestNameCollision(t *testing.T) {
	noLeaks(t)
	a, b := New(t, "same"), New(t, "same")
	if b.Name() != a.Name()+"-2" {
		t.Errorf("names %s and %s", a, b)
	}
	if want := fmt.Sprintf("ns-%d-same", os.Getpid()); a.Name() != want {
		t.Errorf("name %s, want %s", a, want)
	}
	left, err := Leftovers()
	if err != nil || !slices.Equal(left, []string{a.Name(), b.Name()}) {
		t.Errorf("Leftovers() = %v, %v", left, err)
	}
	f := runFake(t, func(tb testing.TB) { New(tb, "bad name") })
	if !f.Failed() || !strings.Contains(f.Logged(), `namespace name "bad name"`) {
		t.Errorf("a bad name: failed %v, output %q", f.Failed(), f.Logged())
	}
}
