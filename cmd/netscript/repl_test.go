package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pty is the controlling side of a pseudo-terminal with the binary running
// on the other side, as a person at a terminal would run it.
type pty struct {
	t      *testing.T
	master *os.File
	cmd    *exec.Cmd

	mu   sync.Mutex
	out  []byte
	seen int // output before this offset has been matched already
	done chan struct{}
}

// openPTY opens a pseudo-terminal pair the way posix_openpt, grantpt and
// unlockpt do: /dev/ptmx, then TIOCSPTLCK to unlock and TIOCGPTN for the
// number of the terminal side (grantpt has nothing to do with devpts).
func openPTY() (master *os.File, tty string, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, "", fmt.Errorf("unlockpt: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, "", fmt.Errorf("ptsname: %w", err)
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 100}); err != nil {
		master.Close()
		return nil, "", fmt.Errorf("window size: %w", err)
	}
	return master, fmt.Sprintf("/dev/pts/%d", n), nil
}

// startREPL runs the binary with no arguments on a new terminal.
func startREPL(t *testing.T, env ...string) *pty {
	t.Helper()
	return startOnPTY(t, nil, env...)
}

// startOnPTY runs the binary with args on a new terminal, in its own
// session with the terminal as its controlling one, so Ctrl-C there sends
// SIGINT as it does for a person.
func startOnPTY(t *testing.T, args []string, env ...string) *pty {
	t.Helper()
	return startOnPTYSize(t, unix.Winsize{Row: 40, Col: 100}, args, env...)
}

// startOnPTYSize is startOnPTY on a terminal that reports the size ws.
func startOnPTYSize(t *testing.T, ws unix.Winsize, args []string, env ...string) *pty {
	t.Helper()
	master, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &ws); err != nil {
		master.Close()
		t.Fatalf("window size: %v", err)
	}
	slave, err := os.OpenFile(tty, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("open %s: %v", tty, err)
	}
	defer slave.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), append([]string{"TERM=xterm"}, env...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		master.Close()
		t.Fatal(err)
	}
	p := &pty{t: t, master: master, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		master.Close()
	})
	return p
}

// send types s.
func (p *pty) send(s string) {
	p.t.Helper()
	if _, err := p.master.Write([]byte(s)); err != nil {
		p.t.Fatalf("type %q: %v", s, err)
	}
}

// expect waits until want appears in output not matched before, and
// returns the output up to and including it.
func (p *pty) expect(want string, limit time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		p.mu.Lock()
		rest := string(p.out[p.seen:])
		if i := strings.Index(rest, want); i >= 0 {
			p.seen += i + len(want)
			p.mu.Unlock()
			return rest[:i+len(want)]
		}
		p.mu.Unlock()
		if time.Now().After(deadline) {
			p.t.Fatalf("no %q within %v; the terminal shows:\n%s", want, limit, rest)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// expectRE is expect for a pattern: it waits until re matches output not
// matched before, and returns the output up to the end of the match.
func (p *pty) expectRE(re *regexp.Regexp, limit time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		p.mu.Lock()
		rest := string(p.out[p.seen:])
		if loc := re.FindStringIndex(rest); loc != nil {
			p.seen += loc[1]
			p.mu.Unlock()
			return rest[:loc[1]]
		}
		p.mu.Unlock()
		if time.Now().After(deadline) {
			p.t.Fatalf("no match for %q within %v; the terminal shows:\n%s", re, limit, rest)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// measuring matches a live progress line that shows transactions counted:
// the test it belongs to is inside its measured interval.
var measuring = regexp.MustCompile(` s of [0-9.]+ s  [1-9][0-9]*\.[0-9]{2} Trans/s`)

// wait waits for the binary to exit, at most limit, and for the terminal
// to have shown all it wrote; it returns everything the terminal showed
// and the exit status.
func (p *pty) wait(limit time.Duration) (string, error) {
	p.t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(limit):
		p.cmd.Process.Kill()
		p.t.Fatalf("still running %v later", limit)
	}
	select {
	case <-p.done:
	case <-time.After(limit):
		p.t.Fatalf("the terminal did not close %v after the exit", limit)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.out), err
}

// visible is what a person sees of terminal output, line by line: the
// text after each line's last carriage return (the live progress line is
// redrawn with one and erased at the end), without the erase-line codes.
func visible(out string) string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		l = l[strings.LastIndexByte(l, '\r')+1:]
		if l = strings.ReplaceAll(l, "\x1b[K", ""); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// prompt waits for the first prompt after what was typed.
func (p *pty) prompt() string {
	p.t.Helper()
	return p.expect(">>> ", 10*time.Second)
}

// TestREPL drives a session through a real pseudo-terminal: prompts, a
// multi-line def, a test, Tab completion, Ctrl-C during a 30 s test and
// at the prompt, help, the history file, and Ctrl-D.
func TestREPL(t *testing.T) {
	state := t.TempDir()
	p := startREPL(t, "HOME="+t.TempDir(), "XDG_STATE_HOME="+state)
	p.expect("help() lists the builtins", 10*time.Second)
	p.prompt()

	// A statement, and a def over several lines with the ... prompt.
	p.send("x = 41\r")
	p.prompt()
	p.send("def f(a):\r")
	p.expect("... ", 5*time.Second)
	p.send("    return a + 1\r")
	p.expect("... ", 5*time.Second)
	p.send("\r")
	p.prompt()
	p.send("f(x)\r")
	if got := p.prompt(); !strings.Contains(got, "42") {
		t.Errorf("f(x) echoed %q", got)
	}

	// A test: the result echoes as its one-line summary.
	p.send("r = tcp_rr(transactions=20, brand=\"kept\")\r")
	p.prompt()
	p.send("r\r")
	if got := p.prompt(); !strings.Contains(got, `<result TCP_RR "kept"`) || strings.Contains(got, "bytes_received") {
		t.Errorf("r echoed %q, want the short summary", got)
	}

	// Tab completes a builtin's name, then a keyword option inside its call.
	p.send("tcp_cr\t")
	p.expect("tcp_crr", 5*time.Second)
	p.send("(transa\t")
	p.expect("tcp_crr(transactions=", 5*time.Second)
	p.send("20)\r")
	if got := p.prompt(); !strings.Contains(got, "<result TCP_CRR") {
		t.Errorf("completed call gave %q", got)
	}
	// ... and a field after a result's dot, nested ones too.
	p.send("r.lat\t")
	p.expect("r.latency", 5*time.Second)
	p.send(".p5\t")
	p.expect("r.latency.p50", 5*time.Second)
	p.send("\r")
	p.prompt()

	// Ctrl-C during a 30 s test stops it at once, says what it measured,
	// and every variable is still there.
	// Ctrl-C comes once the live progress line shows transactions, so
	// the test is measuring whatever a loaded machine took to set it up;
	// the 30 s test must then end well before its time.
	p.send("r = tcp_rr(duration=30)\r")
	p.expectRE(measuring, 60*time.Second)
	start := time.Now()
	p.send("\x03")
	p.expect("interrupted; measured before that: <result TCP_RR", 20*time.Second)
	t.Logf("Ctrl-C to the test stopped: %v", time.Since(start))
	p.prompt()
	p.send("x, r.brand\r")
	if got := p.prompt(); !strings.Contains(got, `(41, "kept")`) {
		t.Errorf("variables after Ctrl-C: %q", got)
	}

	// Ctrl-C at the prompt throws the line away.
	p.send("abc")
	p.expect("abc", 5*time.Second)
	p.send("\x03")
	p.prompt()
	p.send("x\r")
	if got := p.prompt(); !strings.Contains(got, "41") || strings.Contains(got, "abc") {
		t.Errorf("after Ctrl-C at the prompt: %q", got)
	}

	// help() documents a builtin's options with their defaults.
	p.send("help(tcp_rr)\r")
	if got := p.prompt(); !strings.Contains(got, "duration = 10s") || !strings.Contains(got, "burst = 0") {
		t.Errorf("help(tcp_rr): %q", got)
	}

	// An error is reported and the session goes on.
	p.send("tcp_rr(requets=1)\r")
	if got := p.prompt(); !strings.Contains(got, "unknown option requets (did you mean request?)") {
		t.Errorf("error: %q", got)
	}

	// Ctrl-D leaves with status 0.
	p.send("\x04")
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after Ctrl-D: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not end the session")
	}

	// History is kept in the XDG state directory, one line per line typed.
	hist, err := os.ReadFile(filepath.Join(state, "netscript", "history"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"x = 41", "def f(a):", "    return a + 1", "help(tcp_rr)"} {
		if !strings.Contains(string(hist), want+"\n") {
			t.Errorf("history lacks %q:\n%s", want, hist)
		}
	}

	// The next session starts with it: Up recalls the last line.
	q := startREPL(t, "HOME="+t.TempDir(), "XDG_STATE_HOME="+state)
	q.prompt()
	q.send("\x1b[A")
	q.expect("tcp_rr(requets=1)", 5*time.Second)
	q.send("\x03")
	q.prompt()
	q.send("\x04")
	if err := q.cmd.Wait(); err != nil {
		t.Errorf("second session: %v", err)
	}
}

// TestREPLHistoryHome: without XDG_STATE_HOME the history goes under
// ~/.local/state, whose directories are created.
func TestREPLHistoryHome(t *testing.T) {
	home := t.TempDir()
	p := startREPL(t, "HOME="+home, "XDG_STATE_HOME=")
	p.prompt()
	p.send("1 + 1\r")
	p.expect("2", 5*time.Second)
	p.prompt()
	p.send("\x04")
	if err := p.cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	hist, err := os.ReadFile(filepath.Join(home, ".local", "state", "netscript", "history"))
	if err != nil || !strings.Contains(string(hist), "1 + 1") {
		t.Errorf("history: %q, %v", hist, err)
	}
}

// TestREPLParallel: in a session, parallel() freezes what its branches
// share and nothing else: a statement that names a list around the call
// still changes it, a branch that changes a shared list fails with the
// frozen-value error, and the session goes on.
func TestREPLParallel(t *testing.T) {
	p := startREPL(t, "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	p.prompt()
	p.send("rows = []\r")
	p.prompt()
	p.send("rows.extend(parallel([lambda: 1, lambda: 2]))\r")
	p.prompt()
	p.send("rows\r")
	if got := p.prompt(); !strings.Contains(got, "[1, 2]") {
		t.Errorf("rows after parallel(): %q", got)
	}
	p.send("parallel([lambda: rows.append(3)])\r")
	if got := p.prompt(); !strings.Contains(got, "parallel: branch 0: append: cannot append to frozen list") {
		t.Errorf("a branch changing rows: %q", got)
	}
	p.send("len(rows)\r")
	if got := p.prompt(); !strings.Contains(got, "2") {
		t.Errorf("rows after the failed branch: %q", got)
	}
	p.send("\x04")
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// TestStdinNotTerminal: with stdin not a terminal, netscript reads it as a
// script instead of opening a session.
func TestStdinNotTerminal(t *testing.T) {
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader("x = 6 * 7\nprint(x)\n")
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "42" {
		t.Errorf("got %q, %v", out, err)
	}
}

// TestProgressOnTerminal: with stderr a terminal a script shows the live
// status line, rewritten in place and erased at the end; --quiet turns it
// off.
func TestProgressOnTerminal(t *testing.T) {
	code := "r = tcp_rr(duration=0.7)\nprint('rate', r.throughput > 0)"
	p := startOnPTY(t, []string{"-c", code})
	shown := p.expect("rate True", 10*time.Second)
	// Which fractions of the run get shown depends on scheduling; that one
	// is shown, and the line is cleared at the end, does not.
	// A TCP test's line ends with the retransmits so far.
	live := regexp.MustCompile(`\rTCP_RR  [0-9]\.[0-9] s of 0\.7 s  [0-9.]+ Trans/s  retr [0-9]+\x1b\[K`)
	if !live.MatchString(shown) || !strings.Contains(shown, "\r\x1b[K") {
		t.Errorf("no live progress:\n%q", shown)
	}
	p.cmd.Wait()

	q := startOnPTY(t, []string{"--quiet", "-c", code})
	shown = q.expect("rate True", 10*time.Second)
	if strings.Contains(shown, " of 0.7 s") {
		t.Errorf("progress despite --quiet:\n%q", shown)
	}
	q.cmd.Wait()
}
