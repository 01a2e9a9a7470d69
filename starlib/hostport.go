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
// A bare IPv6 address ("::1") and one in brackets ("[::1]") are hosts
// without a port. It returns whether host carried the port.
func splitHost(s *spec.Spec, portGiven bool) (bool, error) {
	h := s.Host
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		s.Host = h[1 : len(h)-1]
		return false, nil
	}
	if strings.Count(h, ":") != 1 && !strings.HasPrefix(h, "[") {
		return false, nil // a name, an IPv4 address or a bare IPv6 address
	}
	host, p, err := net.SplitHostPort(h)
	if err != nil {
		return false, &spec.OptionError{Option: "host", Err: fmt.Errorf("%q is not ADDR or ADDR:PORT ([v6]:PORT for IPv6): %v", h, stripAddr(err))}
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return false, &spec.OptionError{Option: "host", Err: fmt.Errorf("%q: the port must be in 1-65535", h)}
	}
	if host == "" {
		return false, &spec.OptionError{Option: "host", Err: fmt.Errorf("%q has a port but no address", h)}
	}
	if portGiven && s.Port != port {
		return false, &spec.OptionError{Option: "host", Err: fmt.Errorf("%q names port %d and port=%d another: give the port once", h, port, s.Port)}
	}
	s.Host, s.Port = host, port
	return true, nil
}

// stripAddr drops the address net.SplitHostPort repeats in its error.
func stripAddr(err error) string {
	if ae, ok := err.(*net.AddrError); ok {
		return ae.Err
	}
	return err.Error()
}
