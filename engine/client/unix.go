package client

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// The client side of the tests over UNIX domain sockets: the server names
// its socket in Ready; the client's stream sockets are bound to names the
// kernel picks (so the server can tell the flows apart in its counts) and
// its datagram sockets to names the client picks before Setup (so the
// server can answer them, and, in an authenticated session, take only
// their datagrams: Setup.UnixSources).

// unixRemote is the Addr of the server's UNIX domain socket.
func unixRemote(name string) (*sock.Addr, error) {
	if name == "" {
		return nil, errors.New("set-up: the server did not name its UNIX domain socket (is it a release before UNIX domain tests?)")
	}
	a, err := sock.NewUnixAddr(name)
	if err != nil {
		return nil, fmt.Errorf("set-up: the server's UNIX domain socket: %w", err)
	}
	return a, nil
}

// bindUnix binds a flow's UNIX domain socket: to name, or, without one,
// to a name the kernel picks.
func bindUnix(fd int, name string) error {
	if name == "" {
		return sock.Autobind(fd)
	}
	a, err := sock.NewUnixAddr(name)
	if err != nil {
		return err
	}
	if en := sock.Bind(fd, a); en != 0 {
		return &sock.OpError{Op: "bind", Addr: name, Err: en}
	}
	return nil
}

// unixBinds are the names the datagram sockets of a test over UNIX domain
// datagram sockets bind, one per flow: abstract names no one else can
// guess (nil for other tests).
func unixBinds(s *spec.Spec) []string {
	if !s.Workload.Unix || !s.Workload.Datagram {
		return nil
	}
	var r [8]byte
	rand.Read(r[:])
	base := fmt.Sprintf("@netscript-client-%d-%s", os.Getpid(), hex.EncodeToString(r[:]))
	out := make([]string, s.FlowCount())
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", base, i)
	}
	return out
}

// unixSources are what an authenticated session of a test over UNIX
// domain sockets tells the server its data comes from: the names its
// datagram sockets bind, and this process, which makes its connections.
func unixSources(s *spec.Spec, binds []string) []string {
	if !s.Workload.Unix {
		return nil
	}
	if s.Workload.Datagram {
		return binds
	}
	return []string{fmt.Sprintf("pid:%d", os.Getpid())}
}

// onThisMachine checks that the server at addr runs on this machine, as a
// test over UNIX domain sockets needs: addr is a loopback address or one
// of this machine's own.
func onThisMachine(w *spec.Workload, addr netip.Addr) error {
	if addr.IsLoopback() {
		return nil
	}
	if ifs, err := net.InterfaceAddrs(); err == nil {
		for _, ia := range ifs {
			if n, ok := ia.(*net.IPNet); ok {
				if a, ok := netip.AddrFromSlice(n.IP); ok && a.Unmap() == addr.Unmap() {
					return nil
				}
			}
		}
	}
	return fmt.Errorf("%s is not this machine: %s runs over UNIX domain sockets, which reach only a server on the same machine; "+
		"give no host (the embedded server), or the address of a daemon here (127.0.0.1)", addr, w.Name)
}

// unixFamily is the result's family of a test over UNIX domain sockets.
const unixFamily = "unix"
