package npwire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// NotNetserverError is an answer at a netserver's address that is not a
// netserver's: what answered, in one line.
type NotNetserverError struct {
	Addr string
	What string
	// Netscript says the far end is a netscript daemon, so the test
	// should be run against it as one (the front end says how).
	Netscript bool
}

func (e *NotNetserverError) Error() string {
	return fmt.Sprintf("%s at %s %s", "the far end", e.Addr, e.What)
}

// silentWhat begins what a far end that answered nothing did.
const silentWhat = "accepted the connection but sent no answer in time"

// netscriptMagic is how a netscript daemon greets every connection
// (proto.Magic), before the client has said anything.
const netscriptMagic = "NETSCRPT"

// ReadAnswer reads one message from c before deadline. An answer that is
// not a netperf message is a *NotNetserverError that says what answered
// (a netscript daemon, an HTTP server, a silent listener, a peer that
// closed), so a test aimed at the wrong thing fails in one line and never
// waits longer than the deadline.
func ReadAnswer(c net.Conn, addr string, deadline time.Time) (*Message, error) {
	c.SetReadDeadline(deadline)
	defer c.SetReadDeadline(time.Time{})
	b := make([]byte, MessageSize)
	n, err := io.ReadFull(c, b)
	if err == nil {
		if what := Diagnose(b); what != "" {
			return nil, &NotNetserverError{Addr: addr, What: what, Netscript: bytes.HasPrefix(b, []byte(netscriptMagic))}
		}
		return Parse(b)
	}
	return nil, &NotNetserverError{Addr: addr, What: Explain(b[:n], err), Netscript: bytes.HasPrefix(b[:n], []byte(netscriptMagic))}
}

// ReadLaterAnswer reads one message, what ("OMNI_RESULTS"), from a far end
// that has already answered as a netserver: its failure says what became
// of the session (closed, reset, silent, cut short), not that the far end
// is no netserver.
func ReadLaterAnswer(c net.Conn, addr, what string, deadline time.Time) (*Message, error) {
	c.SetReadDeadline(deadline)
	defer c.SetReadDeadline(time.Time{})
	b := make([]byte, MessageSize)
	n, err := io.ReadFull(c, b)
	if err == nil {
		return Parse(b)
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		if n == 0 {
			return nil, fmt.Errorf("the netserver at %s sent no %s in time", addr, what)
		}
		return nil, fmt.Errorf("the netserver at %s sent %d of the %d bytes of its %s, then nothing", addr, n, MessageSize, what)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("the netserver at %s closed the control connection before its %s (%d bytes of it came): did it exit, or end the test on its own timer?", addr, what, n)
	}
	return nil, fmt.Errorf("reading the %s of the netserver at %s: %w", what, addr, err)
}

// ReadFirstAnswer is ReadAnswer for the first answer of a far end that may
// not be a netserver at all: it waits for three quarters of the time to
// deadline, and when nothing came asks in the rest whether an HTTP server
// listens there (ProbeHTTP), so that it can say so.
func ReadFirstAnswer(c net.Conn, addr string, deadline time.Time) (*Message, error) {
	left := time.Until(deadline)
	m, err := ReadAnswer(c, addr, time.Now().Add(left*3/4))
	var nn *NotNetserverError
	if err != nil && errors.As(err, &nn) && strings.HasPrefix(nn.What, silentWhat) {
		if what := ProbeHTTP(c.RemoteAddr().String(), deadline); what != "" {
			nn.What = what
		}
	}
	return m, err
}

// ProbeHTTP asks the far end at addr, which answered nothing to a netperf
// message, whether it is an HTTP server (which waits for the end of a
// request line that netperf's binary messages never send): a HEAD request
// on a new connection, answered before deadline. It returns what
// Diagnose says of the answer, or "".
func ProbeHTTP(addr string, deadline time.Time) string {
	c, err := net.DialTimeout("tcp", addr, time.Until(deadline))
	if err != nil {
		return ""
	}
	defer c.Close()
	c.SetDeadline(deadline)
	if _, err := io.WriteString(c, "HEAD / HTTP/1.0\r\n\r\n"); err != nil {
		return ""
	}
	b := make([]byte, 128)
	n, _ := io.ReadAtLeast(c, b, 5)
	if !bytes.HasPrefix(b[:n], []byte("HTTP/")) {
		return ""
	}
	return Diagnose(b[:n])
}

// Diagnose says what sent b, the first bytes of an answer, if they show
// that it is not a netserver ("" if they may be a netserver's).
func Diagnose(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte(netscriptMagic)):
		return `is a netscript daemon (it greets with "NETSCRPT"), not a netserver`
	case bytes.HasPrefix(b, []byte("HTTP/")):
		line, _, _ := bytes.Cut(b, []byte("\n"))
		return fmt.Sprintf("is an HTTP server (it answered %q), not a netserver", printable(line, 60))
	case bytes.HasPrefix(b, []byte("SSH-")):
		line, _, _ := bytes.Cut(b, []byte("\n"))
		return fmt.Sprintf("is an SSH server (it answered %q), not a netserver", printable(line, 60))
	}
	return ""
}

// Explain says what a far end did that sent only b before err ended the
// read of a whole message.
func Explain(b []byte, err error) string {
	if what := Diagnose(b); what != "" {
		return what
	}
	var ne net.Error
	timeout := errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
	switch {
	case timeout && len(b) == 0:
		return silentWhat + ": a silent listener, not a netserver (or a netserver started with -f that is busy with another test)"
	case timeout:
		return fmt.Sprintf("answered %d bytes (%s), not netperf's %d-byte message, and then nothing: "+
			"a netserver of another version, or not a netserver", len(b), hexHead(b), MessageSize)
	case errors.Is(err, syscall.ECONNRESET) && len(b) == 0:
		return "reset the connection without an answer: not a netserver"
	case errors.Is(err, io.EOF) && len(b) == 0:
		return "closed the connection without an answer: not a netserver (or a netserver that wants a passphrase, -Z)"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("answered %d bytes (%s), not netperf's %d-byte message, and closed: "+
			"a netserver of another version, or not a netserver", len(b), hexHead(b), MessageSize)
	}
	return fmt.Sprintf("failed after %d bytes of an answer: %v", len(b), err)
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
	}, strings.TrimRight(string(b), "\r"))
}

// hexHead is the first bytes of b in hex, for an answer no one can read.
func hexHead(b []byte) string {
	if len(b) > 8 {
		return fmt.Sprintf("% x ...", b[:8])
	}
	return fmt.Sprintf("% x", b)
}
