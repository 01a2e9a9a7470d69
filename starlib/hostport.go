package starlib

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"netscript/engine/spec"
)

// splitHost reads host="ADDR:PORT" (and "[v6]:PORT") as client= does:
// the port goes to s.Port unless port= gives another, which is an error.
// It returns whether host carried the port.
func splitHost(s *spec.Spec, portGiven bool) (bool, error) {
	host, port, err := SplitHostPort(s.Host)
	if err != nil {
		return false, &spec.OptionError{Option: "host", Err: err}
	}
	if port == 0 {
		s.Host = host
		return false, nil
	}
	if portGiven && s.Port != port {
		return false, &spec.OptionError{Option: "host", Err: fmt.Errorf("%q names port %d and port=%d another: give the port once", s.Host, port, s.Port)}
	}
	s.Host, s.Port = host, port
	return true, nil
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
