package server

import (
	"bytes"
	"strings"
	"testing"
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
	if !strings.Contains(out.String(), "7 more lines were not logged (at most 3 a second)\nline\n") {
		t.Fatalf("got:\n%s", out.String())
	}
}
