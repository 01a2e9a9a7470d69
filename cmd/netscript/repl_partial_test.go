package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestREPLZeroColumns: on a terminal that reports zero columns the
// session still completes and edits, as on one of 80.
func TestREPLZeroColumns(t *testing.T) {
	p := startOnPTYSize(t, unix.Winsize{Row: 0, Col: 0}, nil, "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	p.prompt()
	// Tab completes a builtin's name and then an option.
	p.send("tcp_cr\t")
	p.expect("tcp_crr", 5*time.Second)
	p.send("(transa\t")
	p.expect("tcp_crr(transactions=", 5*time.Second)
	p.send("5)\r")
	if got := p.prompt(); !strings.Contains(got, "<result TCP_CRR") {
		t.Errorf("completed call gave %q", got)
	}
	// Editing: Left twice and insert, then Home and insert.
	p.send("1 + 3\x1b[D2\x01x = \r")
	p.send("x\r")
	p.expect("\r\n24\r\n", 10*time.Second) // x = 1 + 23
	p.send("\x04")
	if _, err := p.wait(10 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// TestREPLKeepsPartial: Ctrl-C during a long test binds what it measured
// to _ and says so; Ctrl-C during confidence() keeps the finished
// iterations as a partial confidence in _.
func TestREPLKeepsPartial(t *testing.T) {
	p := startREPL(t, "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	p.prompt()
	p.send("r2 = tcp_rr(duration=30)\r")
	p.expectRE(measuring, 60*time.Second)
	p.send("\x03")
	p.expect("interrupted; measured before that: <result TCP_RR", 20*time.Second)
	p.expect("(kept in _)", 5*time.Second)
	p.prompt()
	p.send("_.test, _.transactions > 0, _.elapsed < 30\r")
	if got := p.prompt(); !strings.Contains(got, `("TCP_RR", True, True)`) {
		t.Errorf("_ after Ctrl-C: %q", got)
	}

	// confidence(): two iterations of 1 s end, the third is cut short.
	p.send(`n = [0]` + "\r")
	p.prompt()
	p.send(`def fn():` + "\r")
	p.expect("... ", 5*time.Second)
	p.send(`    n[0] += 1` + "\r")
	p.expect("... ", 5*time.Second)
	p.send(`    return tcp_rr(duration=1 if n[0] < 3 else 30)` + "\r")
	p.expect("... ", 5*time.Second)
	p.send("\r")
	p.prompt()
	p.send("confidence(fn, min=5, max=10)\r")
	// The third iteration's live line: confidence 3/10, then its test.
	p.expectRE(regexp.MustCompile(`confidence: iteration 3 of 10`), 60*time.Second)
	p.expectRE(measuring, 60*time.Second)
	p.send("\x03")
	p.expect("interrupted; kept in _: a partial confidence of the 2 finished iterations: <partial confidence throughput", 20*time.Second)
	p.prompt()
	p.send("_.partial, _.iterations, len(_.results), _.met\r")
	if got := p.prompt(); !strings.Contains(got, "(True, 2, 2, False)") {
		t.Errorf("_ after Ctrl-C in confidence(): %q", got)
	}
	p.send("\x04")
	if _, err := p.wait(10 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// TestREPLErrorLines: an error's line number counts from the start of
// its statement, not from the start of the session.
func TestREPLErrorLines(t *testing.T) {
	p := startREPL(t, "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	p.prompt()
	for _, l := range []string{"a = 1", "b = 2", "c = 3"} {
		p.send(l + "\r")
		p.prompt()
	}
	p.send("print(nosuch)\r")
	if got := p.prompt(); !strings.Contains(got, "<stdin>:1:7: undefined: nosuch") {
		t.Errorf("error after three statements: %q", got)
	}
	p.send("def f():\r")
	p.expect("... ", 5*time.Second)
	p.send("    x = 1\r")
	p.expect("... ", 5*time.Second)
	p.send("    return x + None\r")
	p.expect("... ", 5*time.Second)
	p.send("\r")
	p.prompt()
	p.send("f()\r")
	if got := p.prompt(); !strings.Contains(got, "<stdin>:1:2: in <expr>") || !strings.Contains(got, "<stdin>:3:14: in f") {
		t.Errorf("error in a def: %q", got)
	}
	p.send("for i in [1]:\r    z = i\r    print(1 + None)\r\r")
	p.expect("<stdin>:3:13: unknown binary op: int + NoneType", 10*time.Second)
	p.send("\x04")
	p.wait(10 * time.Second)
}
