package server

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestFloodGate: a burst of lines is cut to the limit, and the next second
// begins with how many were left out.
func TestFloodGate(t *testing.T) {
	var out bytes.Buffer
	g := &floodGate{w: &out, perSecond: 3}
	for i := 0; i < 10; i++ {
		g.Write([]byte("line\n"))
	}
	if n := strings.Count(out.String(), "line\n"); n != 3 {
		t.Fatalf("%d lines passed in one second, want 3:\n%s", n, out.String())
	}
	g.window = g.window.Add(-2e9) // a second later
	g.Write([]byte("line\n"))
	if !strings.Contains(out.String(), "7 more lines were not logged (at most 3 lines and 0 bytes a second)\nline\n") {
		t.Fatalf("got:\n%s", out.String())
	}
}

// TestFloodGateBytes: long lines are cut, and the bytes of a second are
// bounded however few the lines (a Setup naming a 65,000-character test
// once filled 9.1 MB of log in 6.9 s).
func TestFloodGateBytes(t *testing.T) {
	var out bytes.Buffer
	g := newFloodGate(&out)
	long := strings.Repeat("x", 65000) + "\n"
	began := time.Now()
	for i := 0; i < 1000; i++ {
		g.Write([]byte(long))
	}
	// The gate's windows are seconds of the clock: a loaded machine may
	// take more than one to write the lines, and each second may log its
	// share (and the line on what the one before left out).
	windows := int(time.Since(began)/time.Second) + 1
	if most := windows * (logBytesPerSecond + 128); out.Len() > most {
		t.Fatalf("%d bytes logged in %d windows of a second, want at most %d", out.Len(), windows, most)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if len(first) > logLineMax+64 || !strings.HasSuffix(first, "(line cut: 65001 bytes)") {
		t.Fatalf("first line (%d bytes) ends %q", len(first), first[max(0, len(first)-40):])
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"TCP_RR", `"TCP_RR"`},
		{strings.Repeat("a", 64), `"` + strings.Repeat("a", 64) + `"`},
		{strings.Repeat("a", 65000), `"` + strings.Repeat("a", 64) + `"... (65000 bytes)`},
		{"\x00\n", `"\x00\n"`},
		{strings.Repeat("é", 40), `"` + strings.Repeat("é", 32) + `"... (80 bytes)`},
	} {
		if got := clip(c.in); got != c.want {
			t.Errorf("clip(%.20q) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := clipReply(strings.Repeat("b", 10000)); len(got) > replyMax+32 {
		t.Errorf("clipReply kept %d bytes", len(got))
	}
}
