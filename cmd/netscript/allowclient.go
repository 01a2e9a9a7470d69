package main

import (
	"fmt"
	"strconv"

	"netscript/engine/agent"
	"netscript/engine/auth"
	"netscript/engine/limits"
	"netscript/engine/server"
	"netscript/engine/workload"
)

// allowClient is serve's --allow-client: whether the daemon runs the
// client side of tests for scripts (client=), always toward netscript
// daemons only. Off by default: running traffic for someone is a
// different trust than serving their tests.
type allowClient struct {
	on  bool
	bad string // a value it does not take, reported after parsing (in one line, not as flag's "invalid boolean value")
}

// allowClientUsage is the flag's help.
const allowClientUsage = "run the client side of tests for scripts (client=): only toward netscript daemons, " +
	"whose every data port shows the test's tag before any data is sent (default off)"

// IsBoolFlag lets --allow-client stand alone (= --allow-client=true).
func (a *allowClient) IsBoolFlag() bool { return true }

// String is the flag's value as --allow-client=VALUE takes it.
func (a *allowClient) String() string {
	if a == nil || !a.on {
		return "false"
	}
	return "true"
}

// Set reads a boolean, or netscript (true, as the release before took
// it); any other value, any among them, is kept in bad.
func (a *allowClient) Set(v string) error {
	a.bad = ""
	if v == "netscript" {
		a.on = true
		return nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		a.on, a.bad = false, v
		return nil
	}
	a.on = on
	return nil
}

// problem is the one line serve says about a value it does not take.
func (a *allowClient) problem() string {
	if a.bad == "any" {
		return "--allow-client=any is no more: a daemon does not send traffic with no handshake (control=False) on a script's say-so; " +
			"run such a test from the machine itself (--allow-client runs the client side of tests toward netscript daemons)"
	}
	return fmt.Sprintf("--allow-client=%s: want --allow-client (toward netscript daemons) or --allow-client=false", a.bad)
}

// clientAgent is what the daemon does with a script's client= test: run
// it within the daemon's bounds, proving its token to the test's server,
// as far as --allow-client allows; refuse it, naming the flag, without.
func (a *allowClient) clientAgent(th *workload.Threads, tok auth.Token, lim limits.Limits) server.ClientAgent {
	if !a.on {
		return agent.Off{}
	}
	return &agent.Agent{Threads: th, Token: tok, Limits: lim}
}

// notice is what the daemon says at start about running client sides: a
// warning when anyone who can reach it may have it send traffic; "" when
// it runs none.
func (a *allowClient) notice(tok auth.Token, tokenFrom string) string {
	if !a.on {
		return ""
	}
	const toward = "toward netscript daemons"
	if tok == nil {
		return "warning: --allow-client and no token: this daemon runs the client side of tests " + toward +
			" for anyone who can reach it (set --token-file or $" + auth.EnvToken + " to keep it to those who hold a token)"
	}
	return "runs the client side of tests " + toward + " for clients that hold the token from " + tokenFrom
}
