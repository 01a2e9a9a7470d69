package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/session"
)

// Environment variables that aim a script, as --host and --port do.
const (
	envHost = "NETSCRIPT_HOST"
	envPort = "NETSCRIPT_PORT"
)

// isValueFlag reports whether a is --name (or -name), alone or as
// --name=VALUE.
func isValueFlag(a, name string) bool { return isFileFlag(a, name) }

// valueFlag takes the value of the flag --name at args[0] (--name=VALUE or
// the next argument); what names the kind of value for the error.
func valueFlag(name, what string, args []string) (string, []string, error) {
	if v, ok := strings.CutPrefix(args[0], "--"+name+"="); ok {
		if v == "" {
			return "", args, fmt.Errorf("--%s needs %s", name, what)
		}
		return v, args, nil
	}
	if len(args) < 2 || args[1] == "" || strings.HasPrefix(args[1], "-") {
		return "", args, fmt.Errorf("--%s needs %s", name, what)
	}
	return args[1], args[1:], nil
}

// targetFlags are --host, --port and --server as given.
type targetFlags struct {
	host, port, server string
}

// given reports whether any of the three was on the command line.
func (f targetFlags) given() bool { return f.host != "" || f.port != "" || f.server != "" }

// resolveTarget turns the flags and, when --host is not given,
// $NETSCRIPT_HOST and $NETSCRIPT_PORT into the script's target, checking
// each before anything runs. A port belongs to its host: with --host,
// $NETSCRIPT_PORT is not read. getenv is os.Getenv outside tests.
func resolveTarget(f targetFlags, getenv func(string) string) (session.Target, error) {
	var t session.Target
	host, port, from := f.host, f.port, "flags"
	portName := "--port"
	if host == "" {
		if f.port != "" {
			return t, fmt.Errorf("--port needs --host (or $%s): without a host the script's tests go to the embedded server, which picks its own port", envHost)
		}
		host, from = getenv(envHost), "environment"
		if host == "" {
			if f.server != "" {
				return t, fmt.Errorf("--server needs --host: the embedded server is netscript's")
			}
			return t, nil
		}
		port, portName = getenv(envPort), "$"+envPort
	}
	hostName := "--host"
	if from == "environment" {
		hostName = "$" + envHost
	}
	h, p, err := session.SplitHostPort(host)
	if err != nil {
		return t, fmt.Errorf("%s: %v", hostName, err)
	}
	if err := checkHost(h); err != nil {
		return t, fmt.Errorf("%s %q: %v", hostName, host, err)
	}
	t.Host, t.Port, t.From = h, p, from
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return t, fmt.Errorf("%s %s: want a port, 1-65535", portName, port)
		}
		if p != 0 && p != n {
			return t, fmt.Errorf("%s %s names port %d and %s %d another: give the port once", hostName, host, p, portName, n)
		}
		t.Port = n
	}
	switch f.server {
	case "", spec.ServerNetscript:
	case spec.ServerNetserver:
		t.Server = spec.ServerNetserver
	default:
		return t, fmt.Errorf("--server %s: want %s (netscript serve) or %s (netperf's netserver)", f.server, spec.ServerNetscript, spec.ServerNetserver)
	}
	return t, nil
}

// checkHost refuses what cannot be a server's address: not an IP address
// and not a name that resolves (looked up now, so a typo costs no test).
func checkHost(h string) error {
	if h == "" {
		return fmt.Errorf("empty address")
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return nil
	}
	if strings.Trim(h, "0123456789.") == "" {
		return fmt.Errorf("not an IP address (four numbers 0-255 with dots between)")
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:%", r)) {
			return fmt.Errorf("not an IP address or a host name (%q has no place in one)", r)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := sock.Resolve(ctx, h, 0, sock.Auto); err != nil {
		why := err.Error()
		var de *net.DNSError
		if errors.As(err, &de) {
			why = de.Err // the resolver's verdict, not the host again
		}
		return fmt.Errorf("not an IP address or a host name that resolves (%s)", why)
	}
	return nil
}

// aimedAt is the note on stderr that says where a script's tests go.
func aimedAt(t session.Target) string {
	port := t.Port
	if port == 0 {
		port = spec.DefaultControlPort
		if t.Server == spec.ServerNetserver {
			port = spec.NetserverPort
		}
	}
	kind := "netscript serve"
	if t.Server == spec.ServerNetserver {
		kind = "netserver"
	}
	return fmt.Sprintf("netscript: tests that name no host go to %s port %d (%s, from the %s)", t.Host, port, kind, t.From)
}
