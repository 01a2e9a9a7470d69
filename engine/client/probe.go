package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"time"

	"netscript/engine/npwire"
	"netscript/engine/proto"
)

// A far end that says nothing to a netscript client's preamble is asked
// what it is, each question on a connection of its own so that the main
// connection carries nothing a slow daemon would misread: netperf's
// DO_SYSINFO (which a netserver answers with 656 bytes and nothing more:
// no test, no data socket), an HTTP HEAD, and a TLS ClientHello. A
// netscript daemon greets each of them with its preamble before it reads
// a byte, which says the far end is one that was slow to greet the main
// connection. Each question ends at the first answer, at a close, or at
// the caller's deadline.

// finding is what one probe learned: a kind and its words, or nothing.
type finding struct {
	kind PeerKind
	what string // "" if the probe learned nothing
}

// peerDaemon is a probe greeted by a netscript daemon (never a PeerError's
// kind: such a far end is waited on).
const peerDaemon PeerKind = -1

// probe is one question and how to read its answer.
type probe struct {
	name string
	ask  func(ctx context.Context, c net.Conn) finding
}

// probes are the questions asked of a far end that said nothing.
var probes = [...]probe{
	{"netserver", askNetserver},
	{"http", askHTTP},
	{"tls", askTLS},
}

// runProbes asks addr every probe's question at once, each on its own
// connection, until ctx ends, and sends each finding to found (which has
// room for all of them). It returns a function that waits for them all.
func runProbes(ctx context.Context, addr string, found chan<- finding) (wait func()) {
	var wg sync.WaitGroup
	for _, p := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found <- ask(ctx, addr, p)
		}()
	}
	return wg.Wait
}

// ask connects to addr and asks p's question before ctx ends. A
// connection greeted with a netscript daemon's preamble is a daemon's,
// whatever the question.
func ask(ctx context.Context, addr string, p probe) finding {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return finding{}
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	return p.ask(ctx, c)
}

// answer reads the far end's first bytes after a question: up to n, or as
// many as came before it closed or the deadline passed.
func answer(c net.Conn, n int) []byte {
	b := make([]byte, n)
	m, _ := io.ReadFull(c, b)
	return b[:m]
}

// greeted reports whether b begins with a netscript daemon's greeting.
func greeted(b []byte) bool { return bytes.HasPrefix(b, []byte(proto.Magic)) }

// askNetserver sends netperf's DO_SYSINFO: a netserver answers it with a
// SYSINFO_RESPONSE (or errno 998 if it does not know it) and waits for
// the next request.
func askNetserver(_ context.Context, c net.Conn) finding {
	if _, err := c.Write(npwire.SysinfoRequest().Bytes()); err != nil {
		return finding{}
	}
	b := answer(c, npwire.MessageSize)
	if greeted(b) {
		return finding{kind: peerDaemon}
	}
	if len(b) < npwire.MessageSize {
		return finding{} // HTTP and the like are the other probes' to name
	}
	m, err := npwire.Parse(b)
	if err != nil || m.Type != npwire.TypeSysinfoResponse && m.Word2 != npwire.UnknownRequest {
		return finding{}
	}
	return finding{kind: PeerNetserver, what: "is a netserver (it answered netperf's DO_SYSINFO)"}
}

// askHTTP sends a HEAD request, which an HTTP server answers with a status
// line (a Go HTTPS server, with one saying a plain request came).
func askHTTP(_ context.Context, c net.Conn) finding {
	if _, err := io.WriteString(c, "HEAD / HTTP/1.0\r\n\r\n"); err != nil {
		return finding{}
	}
	b := readLine(c, nil, 128)
	switch {
	case greeted(b):
		return finding{kind: peerDaemon}
	case kindOf(b) == PeerHTTP:
		k := PeerHTTP
		if bytes.Contains(b, []byte("HTTPS")) {
			k = PeerTLS
		}
		return finding{kind: k, what: nameBytes(b)}
	}
	return finding{}
}

// askTLS opens a TLS handshake: a TLS server answers the ClientHello with
// a ServerHello or an alert, a record that begins 0x16 or 0x15, 0x03. Only
// those first bytes are looked at; the server's certificate is not (the
// connection carries nothing and is closed).
func askTLS(ctx context.Context, c net.Conn) finding {
	rc := &recorder{Conn: c}
	tc := tls.Client(rc, &tls.Config{InsecureSkipVerify: true, ServerName: "netscript-probe"})
	tc.HandshakeContext(ctx)
	b := rc.first()
	switch {
	case greeted(b):
		return finding{kind: peerDaemon}
	case tlsRecord(b):
		return finding{kind: PeerTLS, what: "is a TLS server (it answered a TLS ClientHello)"}
	}
	return finding{}
}

// recorder keeps the first bytes read through it.
type recorder struct {
	net.Conn
	mu  sync.Mutex
	got []byte
}

func (r *recorder) Read(b []byte) (int, error) {
	n, err := r.Conn.Read(b)
	r.mu.Lock()
	if len(r.got) < 16 {
		r.got = append(r.got, b[:min(n, 16-len(r.got))]...)
	}
	r.mu.Unlock()
	return n, err
}

// first is the first bytes read through r.
func (r *recorder) first() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}
