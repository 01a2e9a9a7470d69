package main

import (
	"strconv"

	"netscript/engine/agent"
	"netscript/engine/auth"
	"netscript/engine/limits"
	"netscript/engine/server"
	"netscript/engine/workload"
)

// allowClient is serve's --allow-client: whether the daemon runs the
// client side of tests for scripts (client=), and toward which servers.
// Off by default: running traffic for someone is a different trust than
// serving their tests.
type allowClient struct {
	on    bool
	reach agent.Reach
	bad   string // a value it does not take, reported after parsing (in one line, not as flag's "invalid boolean value")
}

// allowClientUsage is the flag's help.
const allowClientUsage = "run the client side of tests for scripts (client=): only toward netscript daemons, " +
	"which complete the control handshake before any data is sent; =any also runs control=False tests, " +
	"straight to any address and port (default off)"

// IsBoolFlag lets --allow-client stand alone (= --allow-client=netscript).
func (a *allowClient) IsBoolFlag() bool { return true }

// String is the flag's value as --allow-client=VALUE takes it.
func (a *allowClient) String() string {
	if a == nil || !a.on {
		return "false"
	}
	return a.reach.String()
}

// Set reads netscript, any, or a boolean (true is netscript); any other
// value is kept in bad.
func (a *allowClient) Set(v string) error {
	a.bad = ""
	switch v {
	case "netscript":
		a.on, a.reach = true, agent.Netscript
		return nil
	case "any":
		a.on, a.reach = true, agent.Any
		return nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		a.on, a.bad = false, v
		return nil
	}
	a.on, a.reach = on, agent.Netscript
	return nil
}

// clientAgent is what the daemon does with a script's client= test: run
// it within the daemon's bounds, proving its token to the test's server,
// as far as --allow-client allows; refuse it, naming the flag, without.
func (a *allowClient) clientAgent(th *workload.Threads, tok auth.Token, lim limits.Limits) server.ClientAgent {
	if !a.on {
		return agent.Off{}
	}
	return &agent.Agent{Threads: th, Token: tok, Limits: lim, Reach: a.reach}
}

// notice is what the daemon says at start about running client sides: a
// warning when anyone who can reach it may have it send traffic; "" when
// it runs none.
func (a *allowClient) notice(tok auth.Token, tokenFrom string) string {
	if !a.on {
		return ""
	}
	toward := "toward netscript daemons"
	if a.reach == agent.Any {
		toward = "toward any address and port (control=False included)"
	}
	if tok == nil {
		return "warning: --allow-client and no token: this daemon runs the client side of tests " + toward +
			" for anyone who can reach it (set --token-file or $" + auth.EnvToken + " to keep it to those who hold a token)"
	}
	return "runs the client side of tests " + toward + " for clients that hold the token from " + tokenFrom
}
