package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/childproc"
	"netscript/engine/netns"
)

// TestNetPrompt drives the prompt through a terminal: a script file that
// floods 198.18.78.2 with raw UDP (control=False), an address nobody named
// on the command line. Answering no sends nothing to the listener there;
// answering yes runs the test; with no terminal it is refused and nothing
// is sent; --allow-net runs it without asking.
func TestNetPrompt(t *testing.T) {
	netns.Available(t)
	cli, srv := netns.New(t, "perm-cli"), netns.New(t, "perm-srv")
	netns.Link(t, cli, srv, "198.18.78.1/24", "198.18.78.2/24")

	// The victim: a UDP socket in srv that counts what reaches it.
	var conn net.PacketConn
	if err := srv.Do(func() error {
		var err error
		conn, err = net.ListenPacket("udp4", "198.18.78.2:0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	port := conn.LocalAddr().(*net.UDPAddr).Port
	var got atomic.Int64
	go func() {
		buf := make([]byte, 65536)
		for {
			n, _, err := conn.ReadFrom(buf)
			if err != nil {
				return
			}
			got.Add(int64(n))
		}
	}()

	dir := t.TempDir()
	script := filepath.Join(dir, "flood.star")
	src := fmt.Sprintf("r = udp_stream(host = \"198.18.78.2\", data_port = %d, control = False, duration = 0.5)\nprint(\"sent\", r.bytes_sent > 0)\n", port)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	// settle waits long enough for any datagram in flight to arrive.
	settle := func() int64 { time.Sleep(300 * time.Millisecond); return got.Load() }

	t.Run("no", func(t *testing.T) {
		out, err := promptRun(t, cli, dir, "n\n", "-q", script)
		if err == nil || !strings.Contains(out, `requests net access to "198.18.78.2"`) || !strings.Contains(out, "raw traffic with control=False") ||
			!strings.Contains(out, "--allow-net 198.18.78.2") {
			t.Errorf("answering no: err %v, terminal:\n%s", err, out)
		}
		if n := settle(); n != 0 {
			t.Errorf("answering no, %d bytes reached 198.18.78.2", n)
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := cli.Command(ctx, bin, "-q", script)
		cmd.Dir, cmd.Env = dir, cleanEnv()
		var e bytes.Buffer
		cmd.Stderr = &e
		if err := childproc.Run(cmd); err == nil || !strings.Contains(e.String(), "not allowed to reach 198.18.78.2; run with --allow-net 198.18.78.2") {
			t.Errorf("no terminal: err %v, stderr:\n%s", err, e.String())
		}
		if n := settle(); n != 0 {
			t.Errorf("with no terminal, %d bytes reached 198.18.78.2", n)
		}
	})
	t.Run("yes", func(t *testing.T) {
		out, err := promptRun(t, cli, dir, "y\n", "-q", script)
		if err != nil || !strings.Contains(out, "sent True") {
			t.Errorf("answering yes: err %v, terminal:\n%s", err, out)
		}
		if n := settle(); n == 0 {
			t.Errorf("answering yes, nothing reached 198.18.78.2")
		}
	})
	t.Run("allow-net", func(t *testing.T) {
		before := got.Load()
		out, err := promptRun(t, cli, dir, "", "-q", "--allow-net=198.18.78.2", script)
		if err != nil || strings.Contains(out, "requests net access") || !strings.Contains(out, "sent True") {
			t.Errorf("--allow-net: err %v, terminal:\n%s", err, out)
		}
		if n := settle(); n == before {
			t.Errorf("--allow-net: nothing reached 198.18.78.2")
		}
	})
}

// promptRun runs the binary in ns on a terminal, answers the first
// "[y/N]" with answer (if any) and returns what the terminal showed.
func promptRun(t *testing.T, ns *netns.NS, dir, answer string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := ns.Command(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, cleanEnv()
	tty, name, err := openPTY() // repl_test.go's: no module needed
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer tty.Close()
	slave, err := os.OpenFile(name, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open %s: %v", name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
	if err := childproc.Start(cmd); err != nil {
		slave.Close()
		t.Fatal(err)
	}
	slave.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	asked := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		once := sync.Once{}
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			if strings.Contains(out.String(), "[y/N]") {
				once.Do(func() { close(asked) })
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if answer != "" {
		select {
		case <-asked:
			io.WriteString(tty, answer)
		case <-ctx.Done():
		}
	}
	err = cmd.Wait()
	time.Sleep(100 * time.Millisecond) // the last output through the terminal
	mu.Lock()
	defer mu.Unlock()
	return out.String(), err
}
