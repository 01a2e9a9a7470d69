package netperfcli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"netscript/engine/client"
	"netscript/engine/npwire"
	"netscript/engine/sock"
	"netscript/engine/spec"
)

// explain turns a refusal of the engine's into a netperf-style line.
func (c *Command) explain(err error) error {
	var e *Error
	var r *Refusal
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &r):
		return &Error{Msg: r.Error(), Status: 1}
	}
	return &Error{Msg: "netperf: " + err.Error(), Status: 1}
}

// failed prints what netperf prints when a test cannot run or breaks off,
// and returns its exit status: the control connection that could not be
// established (on stdout, 255), a data connection refused (netperf's
// perror of connect_data_socket, 1), netserver's errno in its answer
// (255), or the engine's reason.
func (c *Command) failed(err error, ran bool, stdout, stderr io.Writer) int {
	var ne *client.NetserverError
	var se *npwire.ServerError
	var oe *sock.OpError
	var te *client.TestError
	switch {
	case errors.As(err, &se) && se.Errno > 0:
		fmt.Fprintf(stdout, "netperf: remote error %d", se.Errno)
		fmt.Fprintln(stderr, syscall.Errno(se.Errno).Error())
		return 255
	case !ran && !c.NoControl && !c.embedded() && c.controlFailed(err, ne, te):
		fmt.Fprintf(stdout, "establish control: are you sure there is a netserver listening on %s at port %s?\n", c.Host, c.TestPort)
		fmt.Fprintf(stdout, "establish_control could not establish the control connection from %s port %s address family %s to %s port %s address family %s\n",
			c.LocalHost, c.LocalTestPort, familyWord(c.LocalFamily), c.Host, c.TestPort, familyWord(c.controlFamily()))
		return 255
	case errors.As(err, &oe) && oe.Op == "connect" || c.NoControl && strings.Contains(err.Error(), "connection refused"):
		cause := error(syscall.ECONNREFUSED)
		if oe != nil {
			cause = oe.Err
		}
		fmt.Fprintf(stderr, "netperf: send_omni: connect_data_socket failed: %s\n", capitalize(cause.Error()))
		return 1
	}
	var oe2 *spec.OptionError
	if errors.As(err, &oe2) && oe2.Option == "host" {
		fmt.Fprintf(stdout, "Netperf could not resolve %s as a host name\n", c.Host)
		return 255
	}
	fmt.Fprintf(stderr, "netperf: %s\n", strings.TrimPrefix(err.Error(), "confidence: "))
	return 1
}

// controlFailed reports whether err is the control connection's: nothing
// listened at netserver's port, nothing answered.
func (c *Command) controlFailed(err error, ne *client.NetserverError, te *client.TestError) bool {
	var ce controlError
	if errors.As(err, &ce) {
		return true
	}
	if !errors.As(err, &ne) || errors.As(err, &te) {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "nothing listens") || strings.Contains(m, "no answer from") || strings.Contains(m, "dial ")
}

// controlFamily is the control connection's family as netperf names it
// after resolving -H: IPv6 for an IPv6 address, else IPv4.
func (c *Command) controlFamily() int {
	if c.Family != afUnspec {
		return c.Family
	}
	if strings.Contains(c.Host, ":") {
		return afInet6
	}
	return afInet
}

// familyWord is netperf's inet_ftos.
func familyWord(f int) string {
	switch f {
	case afInet:
		return "AF_INET"
	case afInet6:
		return "AF_INET6"
	}
	return "AF_UNSPEC"
}

// capitalize is strerror's spelling of an errno's text ("Connection
// refused").
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
