package starlib

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"netscript/engine/sock"
)

// child is the embedded loopback server run as a separate process.
//
// A server inside the client's own process would be faster than any real
// one: on one CPU, switching between two threads of a process skips the
// address-space switch that switching between processes costs, and loopback
// TCP_RR came out 1.5 times the rate against a separately started
// `netscript serve`. The embedded default must give the figures a separate
// server gives, so it is one: the same binary, started on first use, in its
// own process group (a terminal's Ctrl-C is for the script, not for it),
// and killed when the script's process ends.
type child struct {
	cmd   *exec.Cmd
	addrs map[sock.Family]netip.AddrPort
	stop  chan struct{}
	done  chan struct{}
	exit  chan struct{} // closed when the process has ended on its own
}

// childStartTimeout bounds how long the child may take to start listening.
const childStartTimeout = 10 * time.Second

// startChild runs command (the netscript binary and "serve") with the
// arguments that make it an embedded server, and reads the addresses it
// listens on.
func startChild(command []string) (*child, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	defer r.Close()
	args := append(append([]string(nil), command[1:]...),
		"--quiet", "--embedded-fd", "3", "--listen", "127.0.0.1:0", "--listen", "[::1]:0")
	c := &child{cmd: exec.Command(command[0], args...), stop: make(chan struct{}), done: make(chan struct{}), exit: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = nil, os.Stderr
	c.cmd.ExtraFiles = []*os.File{w}
	// The kernel sends Pdeathsig when the thread that forked the child
	// ends, not the process, so the fork happens on a thread locked for the
	// child's whole life.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives exactly as long as the child
		defer close(c.done)
		if err := c.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		go func() { c.cmd.Wait(); close(c.exit) }()
		select {
		case <-c.stop:
			c.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-c.exit:
			case <-time.After(2 * time.Second):
				c.cmd.Process.Kill()
				<-c.exit
			}
		case <-c.exit:
		}
	}()
	err = <-started
	w.Close()
	if err != nil {
		return nil, fmt.Errorf("embedded server: start %s: %w", command[0], err)
	}
	c.addrs, err = readAddrs(r)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	return c, nil
}

// readAddrs reads the child's "FAMILY ADDR:PORT" lines up to "ready".
func readAddrs(r *os.File) (map[sock.Family]netip.AddrPort, error) {
	r.SetReadDeadline(time.Now().Add(childStartTimeout))
	addrs := map[sock.Family]netip.AddrPort{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "ready" {
			if _, ok := addrs[sock.Inet]; !ok {
				return nil, fmt.Errorf("the server process did not listen on 127.0.0.1")
			}
			addrs[sock.Auto] = addrs[sock.Inet]
			return addrs, nil
		}
		fam, addr, ok := strings.Cut(line, " ")
		ap, err := netip.ParseAddrPort(addr)
		if !ok || err != nil {
			return nil, fmt.Errorf("the server process said %q", line)
		}
		f, err := sock.ParseFamily(fam)
		if err != nil {
			return nil, fmt.Errorf("the server process said %q", line)
		}
		addrs[f] = ap
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("waiting for the server process: %w", err)
	}
	return nil, fmt.Errorf("the server process ended before it listened")
}

// alive reports whether the child still runs.
func (c *child) alive() bool {
	select {
	case <-c.exit:
		return false
	default:
		return true
	}
}

// close ends the child and waits for it.
func (c *child) close() {
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	<-c.done
}
