package session

import (
	"fmt"
	"net/netip"

	"netscript/engine/server"
	"netscript/engine/sock"
	"netscript/internal/serveadvice"
	"netscript/session/embedded"
)

// Embedded returns the control address of the embedded loopback server for
// the family, starting the server on first use. It listens on 127.0.0.1 and,
// for IPv6 tests, on ::1, on ports the kernel chooses.
func (s *Session) Embedded(fam sock.Family) (netip.AddrPort, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ServerCommand) > 0 {
		return s.embeddedProcess(fam)
	}
	if ap, ok := s.addrs[fam]; ok {
		return ap, nil
	}
	if s.embedded == nil {
		s.embedded = server.New(server.Config{Version: s.Version, Threads: &s.Threads, Token: s.Token, Explain: serveadvice.Explain})
		s.addrs = map[sock.Family]netip.AddrPort{}
	}
	lo := sock.Loopback(fam)
	a, err := s.embedded.Listen(netip.AddrPortFrom(lo, 0).String())
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("embedded server: %w", err)
	}
	ap := netip.MustParseAddrPort(a.String())
	s.addrs[fam] = ap
	if fam == sock.Auto {
		s.addrs[sock.Inet] = ap
	} else if fam == sock.Inet {
		s.addrs[sock.Auto] = ap
	}
	return ap, nil
}

// embeddedProcess returns the address of the embedded server process,
// starting it (again, if it died) when needed.
func (s *Session) embeddedProcess(fam sock.Family) (netip.AddrPort, error) {
	if s.proc != nil && !s.proc.Alive() {
		s.proc.Close()
		s.proc = nil
	}
	if s.proc == nil {
		p, err := embedded.Start(s.ServerCommand, s.Token)
		if err != nil {
			return netip.AddrPort{}, err
		}
		s.proc = p
	}
	ap, ok := s.proc.Addr(fam)
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("embedded server: no %s loopback address on this machine", fam)
	}
	return ap, nil
}
