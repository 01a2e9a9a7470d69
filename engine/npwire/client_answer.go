package npwire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// NotNetserverError is an answer at a netserver's address that is not a
// netserver's: what answered, in one line.
type NotNetserverError struct {
	Addr string
	What string
}

func (e *NotNetserverError) Error() string {
	return fmt.Sprintf(`server="netserver": %s at %s %s`, "the far end", e.Addr, e.What)
}

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
			return nil, &NotNetserverError{Addr: addr, What: what}
		}
		return Parse(b)
	}
	return nil, &NotNetserverError{Addr: addr, What: Explain(b[:n], err)}
}

// Diagnose says what sent b, the first bytes of an answer, if they show
// that it is not a netserver ("" if they may be a netserver's).
func Diagnose(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte(netscriptMagic)):
		return `is a netscript daemon (it greets with "NETSCRPT"): leave server= out, or give server="netscript"`
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
		return "accepted the connection but sent no answer in time: a silent listener, not a netserver (or a netserver started with -f that is busy with another test)"
	case timeout:
		return fmt.Sprintf("answered %d bytes (%s), not netperf's %d-byte message, and then nothing: "+
			"a netserver of another version, or not a netserver", len(b), hexHead(b), MessageSize)
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
