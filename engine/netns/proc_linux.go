package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/childproc"
)

// runTimeout bounds NS.Run.
const runTimeout = 30 * time.Second

// waitDelay is how long Wait waits for a killed command's output pipes to
// close (a grandchild may hold them) before closing them itself.
const waitDelay = 5 * time.Second

// Command returns a command that runs the program name with args inside
// the namespace, through "ip netns exec" (which execs the program in place,
// so the command's process is the program itself). The program gets a
// process group of its own; when ctx is done the whole group is killed.
// It is also sent SIGKILL if the test process dies (PR_SET_PDEATHSIG).
// The kernel sends that when the thread that forked it ends, which a
// goroutine that locks that thread and returns can bring about early;
// so run or start the command with [childproc.Run], [childproc.Start] or
// their kin, which fork on a thread of their own ([NS.Start] and [NS.Run]
// do), never with its own Run or Start. Set Stdin, Stdout
// and Stderr as with exec.CommandContext; Wait gives up on output pipes
// 5 s after the process is killed.
func (ns *NS) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.name, name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay
	return cmd
}

// killGroup kills the process group of cmd's process, which Command made
// its leader. The group's id is the leader's pid, which is only safe to use
// while the leader has not been reaped, so killGroup first checks that
// through the process's pidfd; exec calls it before Wait has reaped the
// leader, leaving a window of microseconds in which the kernel would have to
// hand the same pid, allocated cyclically, to a new group leader. If the
// process is not a group leader (SysProcAttr was replaced) only the process
// is killed.
func killGroup(cmd *exec.Cmd) error {
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		return err // os.ErrProcessDone: nothing left to kill safely
	}
	err := unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
	if errors.Is(err, unix.ESRCH) {
		return cmd.Process.Kill()
	}
	return err
}

// Run runs the program name with args inside the namespace, waits for it
// (at most 30 s) and returns its standard output and standard error
// together. It fails the test, quoting the output, if the program cannot
// be run or exits with an error.
func (ns *NS) Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := ns.Command(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := childproc.Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("killed after %v", runTimeout)
		}
		t.Fatalf("netns: run %q in %s: %v\n%s", append([]string{name}, args...), ns.name, err, out.String())
	}
	return out.String()
}

// Start starts the program name with args inside the namespace and
// returns at once; use it for servers and other long-running processes.
// The process's standard output and standard error are kept (see
// [Proc.Output]). At cleanup the process and its process group are killed
// and waited for, and if the test failed its output is logged. Cleanup of
// the namespace kills anything still inside it as well, so even a process
// whose Proc was lost does not outlive the test.
func (ns *NS) Start(t testing.TB, name string, args ...string) *Proc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proc{ns: ns.name, cancel: cancel, done: make(chan struct{})}
	p.Cmd = ns.Command(ctx, name, args...)
	p.Cmd.Stdout, p.Cmd.Stderr = &p.out, &p.out
	if err := childproc.Start(p.Cmd); err != nil {
		cancel()
		t.Fatalf("netns: start %q in %s: %v", append([]string{name}, args...), ns.name, err)
	}
	go p.wait()
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("%v", err)
		}
		if t.Failed() {
			t.Logf("netns: %v exited (%v); its output:\n%s", p, p.Err(), p.Output())
		}
	})
	return p
}

// wait reaps the process. When the group leader has exited, and before it
// is reaped (while its id, which is the group's, cannot be reused), the
// rest of the group is killed too if Stop asked for that.
func (p *Proc) wait() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if p.stopping.Load() {
		unix.Kill(-p.Cmd.Process.Pid, unix.SIGKILL)
	}
	p.err = p.Cmd.Wait()
	p.cancel()
	close(p.done)
}

// Stop kills the process and its process group with SIGKILL and waits for
// it to be reaped. It returns an error only if the process is still there
// after 10 s. Calling it again does nothing; cleanup calls it.
func (p *Proc) Stop() error {
	p.stopOnce.Do(func() {
		p.stopping.Store(true)
		p.cancel() // exec kills the group through Command's Cancel
		select {
		case <-p.done:
		case <-time.After(killTimeout):
			p.stopErr = fmt.Errorf("netns: stop %v: still running %v after SIGKILL", p, killTimeout)
		}
	})
	return p.stopErr
}
