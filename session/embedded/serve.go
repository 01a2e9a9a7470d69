package embedded

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"netscript/engine/auth"
	"netscript/engine/limits"
	"netscript/engine/server"
	"netscript/engine/spec"
)

// Serve is the server's side of Start, run by `netscript serve
// --embedded-fd FD`: it reads the token from the script on fd, makes the
// server with newServer(token) (nil: ask no client for one), listens on
// every address of listen it can (IPv6 loopback may be missing), tells the
// script which ones, closes fd and serves until SIGTERM. It closes the
// server before it returns. The script started it in its own process group
// with a death signal, so it never outlives the script.
func Serve(fd int, listen []string, newServer func(auth.Token) *server.Server) error {
	f := os.NewFile(uintptr(fd), "embedded")
	if f == nil {
		return fmt.Errorf("embedded server: descriptor %d is not open", fd)
	}
	tok, err := readToken(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return fmt.Errorf("embedded server: %w", err)
	}
	srv := newServer(tok)
	defer srv.Close()
	listened := 0
	for _, a := range listen {
		addr, err := srv.Listen(a)
		if err != nil {
			continue
		}
		if err := writeAddr(f, netip.MustParseAddrPort(addr.String())); err != nil {
			f.Close()
			return fmt.Errorf("embedded server: tell the script: %w", err)
		}
		listened++
	}
	if listened == 0 {
		f.Close()
		return fmt.Errorf("embedded server could not listen")
	}
	err = writeReady(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("embedded server: tell the script: %w", err)
	}
	signal.Ignore(os.Interrupt)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	<-ch
	return nil
}

// Limits are the bounds of a script's embedded server, from l. It serves
// only that script (which alone holds its token), so it refuses no single
// test the script may ask for (a long test, a large message, many flows).
// But it listens on loopback, where any local user can reach it, so what
// is spent before a client proves the token (pending connections, how
// long a connection may take to ask for a test) and the daemon's budget
// of threads, which the script's own tests share, stay a daemon's: only
// its tests at once are the script's, all from one address.
func Limits(l limits.Limits) limits.Limits {
	l.MaxDuration = spec.MaxDuration
	l.MaxMessage = spec.MaxMessage
	l.MaxBuffer = spec.MaxBuffer
	l.MaxFlows = spec.MaxFlows
	l.MaxTestsPerClient = l.MaxTests
	l.MaxConnRate = 1 << 40
	l.DataPorts = limits.PortRange{Lo: 1, Hi: 65535}
	return l
}
