package embedded

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/auth"
	"netscript/engine/sock"
)

// Process is the embedded loopback server run as a separate process.
//
// A server inside the client's own process would be faster than any real
// one: on one CPU, switching between two threads of a process skips the
// address-space switch that switching between processes costs, and loopback
// TCP_RR came out 1.5 times the rate against a separately started
// `netscript serve`. The embedded default must give the figures a separate
// server gives, so it is one: the same binary, started on first use, in its
// own process group (a terminal's Ctrl-C is for the script, not for it),
// and killed when the script's process ends.
type Process struct {
	cmd   *exec.Cmd
	addrs map[sock.Family]netip.AddrPort
	stop  chan struct{}
	done  chan struct{}
	exit  chan struct{} // closed when the process has ended on its own
}

// startTimeout bounds how long the child may take to start listening.
const startTimeout = 10 * time.Second

// Start runs command (the netscript binary and "serve") with the arguments
// that make it an embedded server (--embedded-fd 3 and two --listen
// addresses), sends it tok (nil: the server asks no client for a token)
// and reads the addresses it listens on.
//
// The token goes through the descriptor the two share, never through a
// command line or an environment: the child's environment is this
// process's less $NETSCRIPT_TOKEN, so the token it serves with is the one
// sent.
func Start(command []string, tok auth.Token) (*Process, error) {
	if len(command) == 0 {
		return nil, fmt.Errorf("embedded server: no command to start it with")
	}
	parent, child, err := socketPair()
	if err != nil {
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	defer parent.Close()
	// The socket holds the token until the child reads it.
	if err := writeToken(parent, tok); err != nil {
		child.Close()
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	args := append(append([]string(nil), command[1:]...),
		"--quiet", "--embedded-fd", "3", "--listen", "127.0.0.1:0", "--listen", "[::1]:0")
	p := &Process{cmd: exec.Command(command[0], args...), stop: make(chan struct{}), done: make(chan struct{}), exit: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = nil, os.Stderr
	p.cmd.Env = withoutToken(os.Environ())
	p.cmd.ExtraFiles = []*os.File{child}
	// The kernel sends Pdeathsig when the thread that forked the child
	// ends, not the process, so the fork happens on a thread locked for the
	// child's whole life.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives exactly as long as the child
		defer close(p.done)
		if err := p.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		go func() { p.cmd.Wait(); close(p.exit) }()
		select {
		case <-p.stop:
			p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.exit:
			case <-time.After(2 * time.Second):
				p.cmd.Process.Kill()
				<-p.exit
			}
		case <-p.exit:
		}
	}()
	err = <-started
	child.Close()
	if err != nil {
		return nil, fmt.Errorf("embedded server: start %s: %w", command[0], err)
	}
	parent.SetReadDeadline(time.Now().Add(startTimeout))
	p.addrs, err = readAddrs(parent)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	return p, nil
}

// socketPair returns the two ends of a connected Unix socket: this
// process's (non-blocking, so reads can have a deadline) and the child's.
func socketPair() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "embedded server"), os.NewFile(uintptr(fds[1]), "embedded server (child's end)"), nil
}

// withoutToken returns env less any $NETSCRIPT_TOKEN.
func withoutToken(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, auth.EnvToken+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// Addr returns the control address the server listens on for fam;
// sock.Auto is its IPv4 address. ok is false when it could not listen on
// that family's loopback address.
func (p *Process) Addr(fam sock.Family) (ap netip.AddrPort, ok bool) {
	ap, ok = p.addrs[fam]
	return ap, ok
}

// Pid returns the process id of the server.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Alive reports whether the process still runs.
func (p *Process) Alive() bool {
	select {
	case <-p.exit:
		return false
	default:
		return true
	}
}

// Close ends the process (SIGTERM, SIGKILL after 2 s) and waits for it.
func (p *Process) Close() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}
