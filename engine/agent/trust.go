package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"netscript/engine/server"
	"netscript/engine/spec"
)

// ErrNotAllowed is what a daemon whose operator has not allowed it to run
// the client side of tests (Off) answers a request to run one; the
// daemon's front end says how to allow it.
var ErrNotAllowed = errors.New("this daemon does not run the client side of tests for scripts")

// ErrOnlyNetscript is why an Agent refuses a test that has no netscript
// control handshake, control=False or against a netserver: a daemon sends
// a script's traffic only to an endpoint that showed the test's tag on
// that very port, which only a netscript daemon's does. Traffic with no
// handshake goes only where the person running netscript sends it
// themselves, never on a remote party's say-so, so no flag lifts this.
var ErrOnlyNetscript = errors.New("this daemon runs the client side of tests only toward netscript daemons, whose every data port shows the test's tag before any data is sent")

// Off is the ClientAgent of a daemon whose operator has not allowed it to
// run the client side of tests (serve without --allow-client): it refuses
// every RunClient with ErrNotAllowed (the daemon's front end names the flag).
type Off struct{}

var _ server.ClientAgent = Off{}

// ServeClient refuses the request, spending nothing on it.
func (Off) ServeClient(_ context.Context, sess *server.Session, _ []byte) {
	sess.Refuse(ErrNotAllowed)
}

// checkReach refuses a test with no netscript control handshake: one
// without a control connection (control=False sends straight to a port),
// or one against a netserver (whose data ports show no tag).
func checkReach(sp *spec.Spec) error {
	switch {
	case sp.NoControl:
		return fmt.Errorf("client: %w; control=False sends straight to a port with no handshake", ErrOnlyNetscript)
	case sp.Netserver():
		return fmt.Errorf("client: %w; a netserver's do not", ErrOnlyNetscript)
	}
	return nil
}

// checkSources refuses a test that binds a source address (local, a
// flow's local) that is not one of this machine's own: the daemon sends
// only as itself, never from an address a script chose for it. An
// unspecified address (0.0.0.0, ::) is the kernel's choice, as no local.
func checkSources(sp *spec.Spec) error {
	srcs := sp.Sources()
	if len(srcs) == 0 {
		return nil
	}
	own, err := ownAddrs()
	if err != nil {
		return fmt.Errorf("client: cannot list this daemon's addresses to check local: %w", err)
	}
	for _, s := range srcs {
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return fmt.Errorf("client: this daemon will not run the test: local: %q is not an IP address", s)
		}
		ip = ip.Unmap().WithZone("")
		if ip.IsUnspecified() {
			continue
		}
		if !own.has(ip) {
			return fmt.Errorf("client: this daemon will not run the test: local: %s is not an address of this daemon's interfaces "+
				"(it sends only from its own addresses)", s)
		}
	}
	return nil
}

// addrSet is a machine's own addresses: each interface's, and every
// address of a loopback interface's prefix (127.0.0.0/8 is all local).
type addrSet struct {
	addrs    map[netip.Addr]bool
	loopback []netip.Prefix
}

// has says whether ip is one of the set's.
func (s addrSet) has(ip netip.Addr) bool {
	if s.addrs[ip] {
		return true
	}
	for _, p := range s.loopback {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ownAddrs reads the addresses of this machine's interfaces, as they are
// now (an address may come and go while the daemon runs).
func ownAddrs() (addrSet, error) {
	set := addrSet{addrs: map[netip.Addr]bool{}}
	ifs, err := net.Interfaces()
	if err != nil {
		return set, err
	}
	for _, ifc := range ifs {
		as, err := ifc.Addrs()
		if err != nil {
			return set, fmt.Errorf("interface %s: %w", ifc.Name, err)
		}
		for _, a := range as {
			n, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip, ok := netip.AddrFromSlice(n.IP)
			if !ok {
				continue
			}
			ip = ip.Unmap()
			set.addrs[ip] = true
			if ifc.Flags&net.FlagLoopback != 0 {
				ones, bits := n.Mask.Size()
				if ip.Is4() && bits == 128 {
					ones -= 96 // an IPv4 address with a 16-byte mask
				}
				if p, err := ip.Prefix(ones); err == nil {
					set.loopback = append(set.loopback, p)
				}
			}
		}
	}
	return set, nil
}
