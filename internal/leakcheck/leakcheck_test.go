package leakcheck

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestFinds: a child process and a listening socket are found while they
// are there, and gone from what Find says once they are.
func TestFinds(t *testing.T) {
	if leaks := Find(); len(leaks) != 0 {
		t.Fatalf("before: %v", leaks)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	leaks := strings.Join(Find(), "\n")
	if !strings.Contains(leaks, "sleep 60") || !strings.Contains(leaks, "listening socket") {
		t.Errorf("Find missed the child or the listener:\n%s", leaks)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l.Close()
	if leaks := Wait(10 * time.Second); len(leaks) != 0 {
		t.Errorf("after: %v", leaks)
	}
}

// TestAlive: this process is alive; a child that has exited is not,
// before it is reaped (a zombie) or after.
func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	c := exec.Command("true")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, c.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if Alive(c.Process.Pid) {
		t.Error("a zombie is alive")
	}
	c.Wait()
	if Alive(c.Process.Pid) {
		t.Error("a reaped process is alive")
	}
}
