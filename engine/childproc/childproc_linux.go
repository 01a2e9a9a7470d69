package childproc

import (
	"errors"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Start starts cmd as cmd.Start does, with the kernel set to kill it
// (SIGKILL) when this process ends. It keeps the rest of cmd.SysProcAttr
// (a process group of its own, say). Wait for cmd as usual: Start never
// reaps it.
//
// Only cmd's process gets the signal, not the processes it starts: give
// it a process group of its own and kill the group in the caller's
// cleanup as well, or have the child die with its parent in turn.
func Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	go func() {
		// Locked for the child's life, so no other goroutine can end the
		// thread; then unlocked, not ended: this thread may have forked
		// other children (exec with Pdeathsig on it, as netns.Command's
		// callers do) before this goroutine was scheduled on it, and
		// ending it would kill them.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		pid := cmd.Process.Pid
		started <- nil
		waitExit(pid)
	}()
	return <-started
}

// waitExit blocks until the child pid has exited, leaving it for the
// caller's Wait to reap (WNOWAIT). It returns at once when the caller's
// Wait has reaped it already (ECHILD).
func waitExit(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
