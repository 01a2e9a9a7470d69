package main

import (
	"flag"
	"io"
	"testing"
	"time"

	"netscript/engine/limits"
)

// TestLimitFlags: serve's bound flags set the bounds they are named after,
// and a value Validate refuses is worded as its flag.
func TestLimitFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want func(l limits.Limits) bool
		err  string // limitsError of Validate, "" if valid
	}{
		{[]string{"--max-tests", "5", "--data-ports", "20000-20100", "--max-duration", "30s"}, func(l limits.Limits) bool {
			return l.MaxTests == 5 && l.DataPorts == (limits.PortRange{Lo: 20000, Hi: 20100}) && l.MaxDuration == 30*time.Second
		}, ""},
		{nil, func(l limits.Limits) bool {
			return l.Liveness == limits.DefaultLiveness && l == withLiveness(limits.Default())
		}, ""},
		{[]string{"--max-threads", "7", "--liveness", "9s"}, func(l limits.Limits) bool { return l.MaxThreads == 7 && l.Liveness == 9*time.Second }, ""},
		{[]string{"--max-tests", "0"}, nil, "--max-tests must be positive"},
		{[]string{"--handshake-timeout", "-1s"}, nil, "--handshake-timeout must be positive"},
		{[]string{"--max-frame", "100"}, nil, "--max-frame must be at least 1024 bytes"},
	} {
		l := limits.Default()
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		registerLimits(fs, &l)
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		err := l.Validate()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.args, err)
		case c.err != "" && (err == nil || limitsError(err) != c.err):
			t.Errorf("%q: got %v; want %q", c.args, err, c.err)
		case c.want != nil && !c.want(l):
			t.Errorf("%q: %+v", c.args, l)
		}
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l := limits.Default()
	registerLimits(fs, &l)
	if fs.Parse([]string{"--data-ports", "10-5"}) == nil {
		t.Error("--data-ports 10-5 accepted")
	}
}

// withLiveness is l with the liveness a daemon applies when none is set.
func withLiveness(l limits.Limits) limits.Limits {
	l.Liveness = limits.DefaultLiveness
	return l
}
