package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"netscript/engine/proto"
)

// A netscript daemon greets every control connection with its preamble at
// once, before it has read a byte. Whatever else answers at a daemon's
// address is named from its first bytes (an SSH banner, a TLS alert, an
// HTTP reply), or, when it says nothing, by asking it on connections of
// its own what it is (probe.go): a netserver and a silent listener both
// wait for the client to speak, and only a question tells them apart.
// The main connection itself carries nothing but the preamble, so a
// daemon that is slow to greet is never sent anything it would misread.

// PeerError says what answered at a netscript daemon's address when it was
// not one, in one line: "is an HTTP server (it answered ...)".
type PeerError struct {
	Addr string // host:port
	What string // what answered, after the address
	Kind PeerKind
}

// PeerKind is what a far end that is not a netscript daemon was found to be.
type PeerKind int

// The kinds of far end a client names.
const (
	PeerUnknown   PeerKind = iota // sent bytes no one here recognises
	PeerNetserver                 // netperf's netserver: the test can run against it as one
	PeerHTTP                      // an HTTP server
	PeerTLS                       // a TLS server (HTTPS and the like)
	PeerSSH                       // an SSH server
	PeerSilent                    // accepted and said nothing to anything
	PeerClosed                    // accepted and closed without a word
	PeerSlow                      // a netscript daemon that greeted a probe but not the client in time
)

func (e *PeerError) Error() string {
	if e.Kind == PeerSlow {
		return e.Addr + " " + e.What
	}
	return fmt.Sprintf("%s %s, not a netscript daemon", e.Addr, e.What)
}

// Unwrap makes a PeerError a proto.ErrNotNetscript, unless the far end is
// a netscript daemon slow to greet.
func (e *PeerError) Unwrap() error {
	if e.Kind == PeerSlow {
		return nil
	}
	return proto.ErrNotNetscript
}

// quietBeforeProbes is the share of the connect timeout a far end has to
// greet before it is asked what it is: a netscript daemon greets within
// milliseconds, so one that has not after a fifth of the bound is most
// likely something else.
const quietBeforeProbes = 5

// awaitGreeting reads the far end's first PreambleSize bytes from c, on
// which our preamble has been sent, and returns them if they begin as a
// netscript daemon's greeting does. Anything else is a *PeerError that
// names the far end, within timeout (the connect timeout) of the call: at
// once from its first bytes, or after the probes (when probe is set) have
// asked it on connections of their own. A far end that a probe found to be
// a netscript daemon (one slow to greet) is waited on up to
// ControlTimeout.
func awaitGreeting(ctx context.Context, c net.Conn, addr string, timeout time.Duration, probe bool) ([]byte, error) {
	start := time.Now()
	verdict := start.Add(timeout)
	hard := start.Add(max(timeout, ControlTimeout))
	c.SetReadDeadline(hard)
	defer c.SetReadDeadline(time.Time{})

	// bound is how long the far end was given to greet, as the errors
	// say it.
	bound := func(daemon bool) time.Duration {
		if daemon {
			return hard.Sub(start)
		}
		return timeout
	}
	first := make(chan firstBytes, 1)
	go func() { first <- readFirst(c) }()
	// stopRead ends the read early and waits for it, so that nothing reads
	// c once this returns.
	stopRead := func() firstBytes {
		c.SetReadDeadline(time.Now())
		return <-first
	}

	probeCtx, cancel := context.WithDeadline(ctx, verdict)
	found := make(chan finding, len(probes))
	var waitProbes func()
	defer func() {
		cancel()
		if waitProbes != nil {
			waitProbes()
		}
	}()
	startProbes := func() {
		if probe && waitProbes == nil {
			waitProbes = runProbes(probeCtx, addr, found)
		}
	}
	quiet := time.NewTimer(timeout / quietBeforeProbes)
	defer quiet.Stop()
	end := time.NewTimer(time.Until(verdict))
	defer end.Stop()

	var closed *firstBytes // the main connection ended without a word
	daemon := false        // a probe was greeted by a netscript daemon
	pending := len(probes)
	for {
		select {
		case fb := <-first:
			first = nil
			if fb.greeting() {
				return fb.b, nil
			}
			if len(fb.b) > 0 || !probe {
				return nil, &PeerError{Addr: addr, Kind: kindOf(fb.b), What: fb.describe(bound(false))}
			}
			if isTimeout(fb.err) {
				return nil, silent(addr, bound(daemon), daemon, waitProbes != nil)
			}
			// Closed or reset without a word: a TLS server does that to
			// a preamble; the probes may say what it is.
			closed = &fb
			startProbes()
			if pending == 0 {
				return nil, &PeerError{Addr: addr, Kind: PeerClosed, What: fb.describe(bound(false))}
			}
		case <-quiet.C:
			startProbes()
		case f := <-found:
			pending--
			switch {
			case f.kind == peerDaemon:
				daemon = true
				end.Stop() // a slow daemon: wait for its greeting, up to hard
			case f.what != "":
				if first != nil {
					stopRead()
				}
				return nil, &PeerError{Addr: addr, Kind: f.kind, What: f.what}
			}
			if closed != nil && pending == 0 {
				return nil, &PeerError{Addr: addr, Kind: PeerClosed, What: closed.describe(bound(false))}
			}
		case <-end.C:
			if closed != nil {
				return nil, &PeerError{Addr: addr, Kind: PeerClosed, What: closed.describe(bound(false))}
			}
			stopRead()
			return nil, silent(addr, bound(daemon), daemon, waitProbes != nil)
		case <-ctx.Done():
			if first != nil {
				stopRead()
			}
			return nil, ctx.Err()
		}
	}
}

// firstBytes is what the far end sent first on the main connection, and
// why reading stopped.
type firstBytes struct {
	b   []byte
	err error
}

// greeting reports whether the far end sent a whole preamble's worth
// beginning with proto.Magic.
func (f firstBytes) greeting() bool {
	return len(f.b) == proto.PreambleSize && bytes.HasPrefix(f.b, []byte(proto.Magic))
}

// readFirst reads up to PreambleSize bytes from c, no more while they
// could be a netscript daemon's greeting (what follows it is the
// handshake's), and, once they cannot, a line more to name what sent them.
func readFirst(c net.Conn) firstBytes {
	b := make([]byte, proto.PreambleSize)
	n := 0
	for n < len(b) {
		m, err := c.Read(b[n:])
		n += m
		if !magicSoFar(b[:n]) {
			c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			return firstBytes{b: readLine(c, b[:n], 128)}
		}
		if err != nil {
			return firstBytes{b: b[:n], err: err}
		}
	}
	return firstBytes{b: b}
}

// magicSoFar reports whether b could still be the start of a preamble.
func magicSoFar(b []byte) bool {
	m := []byte(proto.Magic)
	if len(b) < len(m) {
		return bytes.Equal(b, m[:len(b)])
	}
	return bytes.HasPrefix(b, m)
}

// readLine reads on from c, after b, to the end of the far end's first
// line, at most max bytes (within c's deadline): enough to quote it.
func readLine(c net.Conn, b []byte, max int) []byte {
	buf := make([]byte, max)
	n := copy(buf, b)
	for n < len(buf) && !bytes.ContainsRune(buf[:n], '\n') {
		m, err := c.Read(buf[n:])
		n += m
		if err != nil {
			break
		}
	}
	return buf[:n]
}

// describe says what the far end did that sent f.b and then f.err.
func (f firstBytes) describe(waited time.Duration) string {
	if len(f.b) > 0 {
		return nameBytes(f.b)
	}
	switch {
	case isTimeout(f.err):
		return silentWhat(waited, false, false)
	case errors.Is(f.err, syscall.ECONNRESET):
		return "reset the connection without a word"
	default:
		return "closed the connection without a word"
	}
}

// isTimeout reports whether err is a read deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// silent is the error of a far end that sent nothing in waited.
func silent(addr string, waited time.Duration, daemon, probed bool) error {
	k := PeerSilent
	if daemon {
		k = PeerSlow
	}
	return &PeerError{Addr: addr, Kind: k, What: silentWhat(waited, daemon, probed)}
}

// silentWhat says what a far end that sent nothing did; daemon says a
// probe was greeted by a netscript daemon there, probed that the probes
// asked it.
func silentWhat(waited time.Duration, daemon, probed bool) string {
	w := waited
	switch {
	case daemon:
		return fmt.Sprintf("sent no greeting in %v, though a netscript daemon there greeted another connection (is it overloaded?)", w)
	case probed:
		return fmt.Sprintf("said nothing in %v, nor answered a netserver, HTTP or TLS probe: a silent listener", w)
	}
	return fmt.Sprintf("said nothing in %v (a netscript daemon greets at once)", w)
}

// kindOf is what sent b first, unasked.
func kindOf(b []byte) PeerKind {
	switch {
	case len(b) == 0:
		return PeerClosed
	case bytes.HasPrefix(b, []byte("SSH-")):
		return PeerSSH
	case bytes.HasPrefix(b, []byte("HTTP/")):
		return PeerHTTP
	case tlsRecord(b):
		return PeerTLS
	}
	return PeerUnknown
}

// tlsRecord reports whether b begins as a TLS record from a server does:
// a handshake (ServerHello) or an alert, of version 3.x.
func tlsRecord(b []byte) bool {
	return len(b) >= 2 && (b[0] == 0x16 || b[0] == 0x15) && b[1] == 0x03
}

// nameBytes says what sent b, the first bytes of the far end, unasked or
// answering a question.
func nameBytes(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	switch kindOf(b) {
	case PeerSSH:
		return fmt.Sprintf("is an SSH server (it greets with %q)", printable(line, 60))
	case PeerHTTP:
		if bytes.Contains(b, []byte("HTTPS")) {
			return fmt.Sprintf("is an HTTPS server (it answered a plain HTTP request with %q)", printable(line, 60))
		}
		return fmt.Sprintf("is an HTTP server (it answered %q)", printable(line, 60))
	case PeerTLS:
		return "is a TLS server (it answered with a TLS record)"
	}
	return fmt.Sprintf("answered %d bytes (%s) that are no netscript greeting", len(b), quoteBytes(b))
}

// printable is at most n bytes of b with anything unprintable as '.'.
func printable(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '.'
		}
		return r
	}, strings.TrimRight(string(b), "\r\n"))
}

// quoteBytes is b as text if it reads as text, else its first bytes in hex.
func quoteBytes(b []byte) string {
	if p := printable(b, 40); strings.Count(p, ".")*4 < len(p) {
		return fmt.Sprintf("%q", p)
	}
	if len(b) > 8 {
		return fmt.Sprintf("% x ...", b[:8])
	}
	return fmt.Sprintf("% x", b)
}
