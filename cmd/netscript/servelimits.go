package main

import (
	"errors"
	"flag"
	"fmt"

	"netscript/engine/limits"
)

// registerLimits adds serve's flag for every bound of l to fs, each named
// after its bound, with l's values as defaults.
func registerLimits(fs *flag.FlagSet, l *limits.Limits) {
	liveness := l.Liveness
	if liveness <= 0 {
		liveness = limits.DefaultLiveness
	}
	fs.IntVar(&l.MaxFrame, "max-frame", l.MaxFrame, "largest control message payload in bytes")
	fs.DurationVar(&l.Liveness, "liveness", liveness, "end a test whose client sent nothing on the control connection for this long (clients that send heartbeats; at least three of their periods)")
	fs.DurationVar(&l.MaxDuration, "max-duration", l.MaxDuration, "longest test a client may ask for")
	fs.IntVar(&l.MaxMessage, "max-message", l.MaxMessage, "largest request, response or send size in bytes")
	fs.IntVar(&l.MaxBuffer, "max-buffer", l.MaxBuffer, "largest socket buffer a client may ask for, in bytes")
	fs.IntVar(&l.MaxFlows, "max-flows", l.MaxFlows, "most flows in one test")
	fs.IntVar(&l.MaxTests, "max-tests", l.MaxTests, "most tests running at once")
	fs.IntVar(&l.MaxTestsPerClient, "max-tests-per-client", l.MaxTestsPerClient, "most tests running at once from one client address")
	fs.IntVar(&l.MaxConnRate, "max-conn-rate", l.MaxConnRate, "most connections per second one TCP_CRR test may make")
	fs.IntVar(&l.MaxPending, "max-pending", l.MaxPending, "most control connections still in their handshake")
	fs.IntVar(&l.MaxPendingPerClient, "max-pending-per-client", l.MaxPendingPerClient, "most control connections still in their handshake from one client address")
	fs.IntVar(&l.MaxThreads, "max-threads", l.MaxThreads, fmt.Sprintf("the budget of data-path threads for all tests at once (default: 64 per CPU, at least 128, at most %d)", limits.ThreadCeiling(limits.RuntimeThreads)))
	fs.DurationVar(&l.HandshakeTimeout, "handshake-timeout", l.HandshakeTimeout, "time a client has from connecting to asking for a test, and for each later step before it starts")
	fs.Var(&l.DataPorts, "data-ports", "data ports clients may ask for by number, LO-HI")
}

// limitsError words limits.Validate's refusal as the flag that set the
// value ("--max-tests must be positive").
func limitsError(err error) string {
	var inv *limits.Invalid
	if errors.As(err, &inv) {
		return "--" + inv.Bound + " " + inv.Want
	}
	return err.Error()
}
