package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"netscript/engine/auth"
	"netscript/netperfcli"
)

// netperfCommand is `netscript netperf ARGS...` and this binary run under
// the name netperf: netperf 2.7.1's command line on netscript's engine
// (package netperfcli); prog is the name getopt's messages and
// COMMAND_LINE give it. Ctrl-C ends the test, which still reports what it
// measured, as netperf's does.
func netperfCommand(prog string, args []string) int {
	tok, err := auth.LoadToken("", os.Getenv(auth.EnvToken))
	if err != nil {
		fmt.Fprintf(os.Stderr, "netperf: %v\n", err)
		return 1
	}
	sess := newSession(flags{quiet: true, token: tok})
	defer sess.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return netperfcli.MainProgram(ctx, prog, args, sess, version, os.Stdout, os.Stderr)
}
