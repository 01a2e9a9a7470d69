package session

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"netscript/engine/spec"
)

// Target is where the workload calls of a script that name no host go:
// `netscript --host ADDR [--port N] [--server KIND]` (or $NETSCRIPT_HOST,
// $NETSCRIPT_PORT) sets it, so a script written against the embedded
// server runs against a daemon unchanged. The zero Target is the embedded
// server.
type Target struct {
	Host   string `json:"host"`             // address or name, as host= takes it
	Port   int    `json:"port,omitempty"`   // 0: the server kind's default port
	Server string `json:"server,omitempty"` // "" or "netscript", or "netserver"
	From   string `json:"from,omitempty"`   // where it was set: "flags", "environment", "record"
}

// String is host:port as a user writes it, with the kind when not netscript.
func (t Target) String() string {
	s := t.Host
	if t.Port != 0 {
		s = fmt.Sprintf("%s port %d", s, t.Port)
	}
	if t.Server != "" && t.Server != spec.ServerNetscript {
		s += " (" + t.Server + ")"
	}
	return s
}

// SplitHostPort reads a server's address as host= and --host take it: a
// name or an IP address, or either with a port ("ADDR:PORT",
// "[v6]:PORT"). A bare IPv6 address ("::1") and one in brackets ("[::1]")
// have no port; port is 0 then.
func SplitHostPort(h string) (host string, port int, err error) {
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		return h[1 : len(h)-1], 0, nil
	}
	if strings.Count(h, ":") != 1 && !strings.HasPrefix(h, "[") {
		return h, 0, nil // a name, an IPv4 address or a bare IPv6 address
	}
	host, p, err := net.SplitHostPort(h)
	if err != nil {
		return "", 0, fmt.Errorf("%q is not ADDR or ADDR:PORT ([v6]:PORT for IPv6): %v", h, stripAddr(err))
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("%q: the port must be in 1-65535", h)
	}
	if host == "" {
		return "", 0, fmt.Errorf("%q has a port but no address", h)
	}
	return host, port, nil
}

// stripAddr drops the address net.SplitHostPort repeats in its error.
func stripAddr(err error) string {
	if ae, ok := err.(*net.AddrError); ok {
		return ae.Err
	}
	return err.Error()
}
