package workloads

import (
	"fmt"

	"netscript/engine/spec"
	"netscript/session"
)

// splitHost reads host="ADDR:PORT" (and "[v6]:PORT") as client= does:
// the port goes to s.Port unless port= gives another, which is an error.
// It returns whether host carried the port.
func splitHost(s *spec.Spec, portGiven bool) (bool, error) {
	host, port, err := session.SplitHostPort(s.Host)
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
