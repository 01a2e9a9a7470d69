package proto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"netscript/engine/auth"
)

// recorder keeps every byte written through a connection.
type recorder struct {
	net.Conn
	mu  sync.Mutex
	out bytes.Buffer
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.out.Write(p)
	r.mu.Unlock()
	return r.Conn.Write(p)
}

// wait is how long a test's step may take: Argon2id of the token takes
// most of a second under -race on a loaded machine.
const wait = 10 * time.Second

var (
	testToken  = auth.Token("correct horse battery staple")
	otherToken = auth.Token("correct horse battery stapler")
)

// exchange runs the preamble and the handshake between a server holding
// st and a client holding ct; it returns both ends (after the handshake),
// both keys, every byte either side wrote, and both errors.
func exchange(t testing.TB, st, ct auth.Token) (s, c *Conn, sk, ck, wire []byte, serr, cerr error) {
	t.Helper()
	a, b := pair(t)
	ra, rb := &recorder{Conn: a}, &recorder{Conn: b}
	done := make(chan struct{})
	s, c = NewConn(rb), NewConn(ra)
	// Keys are derived first, as the daemon and the client do, and the
	// bounds are generous: the suite runs on loaded machines.
	ss, cs := auth.NewSecret(st), auth.NewSecret(ct)
	go func() {
		defer close(done)
		if serr = s.Handshake(wait, true); serr == nil {
			sk, serr = s.Authenticate(ss, true, wait)
		}
	}()
	if cerr = c.Handshake(wait, false); cerr == nil {
		ck, cerr = c.Authenticate(cs, false, wait)
	}
	<-done
	return s, c, sk, ck, append(ra.out.Bytes(), rb.out.Bytes()...), serr, cerr
}

// TestAuthenticate covers every pairing of tokens.
func TestAuthenticate(t *testing.T) {
	cases := []struct {
		name       string
		st, ct     auth.Token
		serr, cerr string // error substrings; "" for success
	}{
		// An open server and a client without a token: keys all the same.
		{"both open", nil, nil, "", ""},
		// The same token on both ends: both derive the same key.
		{"same token", testToken, testToken, "", ""},
		// A token on the server only: the client is told it needs one
		// (the front end says how to give it).
		{"client without token", testToken, nil, "the client has no token", "this server requires a token"},
		// A token on the client only: the server cannot prove itself.
		{"server without token", nil, testToken, "the client has a token and this server none", "asks for no token, so it cannot prove it holds yours"},
		// Different tokens: both fail, and the client learns only that.
		{"wrong token", testToken, otherToken, "does not open with this server's token", "authentication failed: the server does not accept this token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, cl, sk, ck, wire, serr, cerr := exchange(t, c.st, c.ct)
			check := func(side string, err error, want string) {
				if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
					t.Errorf("%s: got %v, want %q", side, err, want)
				}
			}
			check("server", serr, c.serr)
			check("client", cerr, c.cerr)
			if c.serr == "" && c.cerr == "" {
				if len(sk) != 32 || !bytes.Equal(sk, ck) {
					t.Errorf("keys differ: server %x, client %x", sk, ck)
				}
				// Frames go both ways, sealed.
				if err := cl.Send(TypeSetup, Setup{Test: "TCP_RR", Brand: "in clear?"}, wait); err != nil {
					t.Fatal(err)
				}
				var m Setup
				if err := s.Expect(TypeSetup, &m, wait); err != nil || m.Brand != "in clear?" {
					t.Fatalf("a sealed Setup: %+v %v", m, err)
				}
				if bytes.Contains(wire, []byte("in clear?")) || bytes.Contains(append(wire, s.c.(*recorder).out.Bytes()...), []byte("TCP_RR")) {
					t.Error("a frame crossed the wire in clear")
				}
			}
			for _, tk := range []auth.Token{c.st, c.ct} {
				if len(tk) > 0 && bytes.Contains(wire, tk) {
					t.Errorf("the token crossed the wire")
				}
			}
		})
	}
	if _, _, _, _, _, _, cerr := exchange(t, testToken, otherToken); !errors.Is(cerr, ErrAuthFailed) {
		t.Errorf("a wrong token is not ErrAuthFailed: %v", cerr)
	}
	if _, _, _, _, _, _, cerr := exchange(t, testToken, nil); !errors.Is(cerr, ErrTokenRequired) {
		t.Errorf("no token for a server that asks for one is not ErrTokenRequired: %v", cerr)
	}
	if _, _, _, _, _, _, cerr := exchange(t, nil, testToken); !errors.Is(cerr, ErrServerOpen) {
		t.Errorf("a token for an open server is not ErrServerOpen: %v", cerr)
	}
	// Every session has keys of its own.
	_, _, k1, _, _, _, _ := exchange(t, testToken, testToken)
	_, _, k2, _, _, _, _ := exchange(t, testToken, testToken)
	if bytes.Equal(k1, k2) {
		t.Error("two sessions have the same key")
	}
}

// TestImpostorServer: a server that does not hold the token cannot make a
// client with one go on, whatever it answers with: the client's own Hello
// reflected, a Welcome made with another token, or with none.
func TestImpostorServer(t *testing.T) {
	answers := map[string]func(hello []byte) []byte{
		"its own Hello": func(hello []byte) []byte { return hello[1:] },
		"another token": func([]byte) []byte { return welcomeWith(t, otherToken) },
		"no token":      func([]byte) []byte { return welcomeWith(t, nil) },
		"garbage":       func([]byte) []byte { return bytes.Repeat([]byte{7}, 48) },
	}
	for name, answer := range answers {
		a, b := pair(t)
		go func() {
			s := NewConn(b)
			if s.Handshake(wait, true) != nil {
				return
			}
			_, hello, err := s.recvHandshake(TypeHello, wait)
			if err != nil {
				return
			}
			s.sendRaw(TypeWelcome, answer(hello), wait)
		}()
		c := NewConn(a)
		if err := c.Handshake(wait, false); err != nil {
			t.Fatal(err)
		}
		_, err := c.Authenticate(auth.NewSecret(testToken), false, wait)
		if err == nil || !strings.Contains(err.Error(), "the server's answer does not prove it holds this token") {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

// welcomeWith is the Welcome a server holding tok would answer some
// client's Hello with.
func welcomeWith(t *testing.T, tok auth.Token) []byte {
	mode := modeOpen
	if tok != nil {
		mode = modeToken
	}
	ci, _ := handshakeState(auth.NewSecret(tok), mode, true)
	hello, _, _, _ := ci.WriteMessage(nil, nil)
	si, _ := handshakeState(auth.NewSecret(tok), mode, false)
	if _, _, _, err := si.ReadMessage(nil, hello); err != nil {
		t.Fatal(err)
	}
	w, _, _, _ := si.WriteMessage(nil, nil)
	return w
}

// TestRelay: a host in the middle that passes the handshake on, byte for
// byte, from a client that holds the token (a script aimed at it) to a
// daemon that holds it too, gets a session it can neither read nor write:
// a frame of its own (a request for a test) does not open on the daemon,
// which ends the session, and what the client sends is sealed. Replaying
// the client's Hello on a new connection gets a Welcome, and nothing more.
// Version 3's challenge and response let such a relay go on logged in.
func TestRelay(t *testing.T) {
	sa, sb := pair(t) // the relay and the daemon
	ca, cb := pair(t) // the client and the relay
	serr := make(chan error, 1)
	go func() {
		s := NewConn(sb)
		if err := s.Handshake(wait, true); err != nil {
			serr <- err
			return
		}
		if _, err := s.Authenticate(auth.NewSecret(testToken), true, wait); err != nil {
			serr <- err
			return
		}
		_, _, err := s.Recv(wait) // the relay's request
		serr <- err
	}()
	cerr := make(chan error, 1)
	go func() {
		c := NewConn(ca)
		if err := c.Handshake(wait, false); err != nil {
			cerr <- err
			return
		}
		if _, err := c.Authenticate(auth.NewSecret(testToken), false, wait); err != nil {
			cerr <- err
			return
		}
		cerr <- c.Send(TypeSetup, Setup{Test: "TCP_RR", Brand: "the client's"}, wait)
	}()
	// The relay: both preambles, the client's Hello, the daemon's Welcome.
	fwd := func(from, to net.Conn, n int) []byte {
		b := make([]byte, n)
		if _, err := io.ReadFull(from, b); err != nil {
			t.Fatal(err)
		}
		to.Write(b)
		return b
	}
	fwd(cb, sa, PreambleSize)
	fwd(sa, cb, PreambleSize)
	hdr := fwd(cb, sa, 5)
	hello := append(hdr, fwd(cb, sa, int(binary.BigEndian.Uint32(hdr[:4]))-1)...)
	hdr = fwd(sa, cb, 5)
	fwd(sa, cb, int(binary.BigEndian.Uint32(hdr[:4]))-1)
	if err := <-cerr; err != nil {
		t.Fatalf("the client: %v", err)
	}
	// What the client sent next is sealed: the relay cannot read it.
	var n [4]byte
	if _, err := io.ReadFull(cb, n[:]); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(cb, got); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte("TCP_RR")) || bytes.Contains(got, []byte("the client's")) {
		t.Errorf("the relay read the client's request: %q", got)
	}
	// A request of its own, in clear as version 3 had it after the login.
	req, _ := AppendFrame(nil, TypeRunClient, RunClient{})
	sa.Write(req)
	if err := <-serr; err == nil || !strings.Contains(err.Error(), "does not open with the session's key") {
		t.Fatalf("the daemon took the relay's own frame: %v", err)
	}

	// The client's Hello again, on a new connection of the relay's own.
	ra, rb := pair(t)
	go func() {
		s := NewConn(rb)
		if s.Handshake(wait, true) != nil {
			serr <- errors.New("handshake")
			return
		}
		if _, err := s.Authenticate(auth.NewSecret(testToken), true, wait); err != nil {
			serr <- err
			return
		}
		_, _, err := s.Recv(wait)
		serr <- err
	}()
	ra.Write(AppendPreamble(nil, Version))
	ra.Write(hello)
	io.ReadFull(ra, make([]byte, PreambleSize))
	if _, _, err := ReadFrame(ra, 4096); err != nil {
		t.Fatalf("the replayed Hello: %v", err)
	}
	// It cannot seal a frame: it has no key. Garbage of the right shape
	// is refused.
	ra.Write([]byte{0, 0, 0, 20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	if err := <-serr; err == nil || !strings.Contains(err.Error(), "does not open with the session's key") {
		t.Fatalf("the daemon went on with a replayed Hello: %v", err)
	}
}

// TestTamperedFrame: a sealed frame changed on the way, or replayed, does
// not open (and ends the conversation); the same frame as sent opens once.
func TestTamperedFrame(t *testing.T) {
	s, c, _, _, _, serr, cerr := exchange(t, testToken, testToken)
	if serr != nil || cerr != nil {
		t.Fatal(serr, cerr)
	}
	var sent bytes.Buffer
	c.c = &recorder{Conn: nopWrite{}}
	c.Send(TypeStop, Stop{}, wait)
	sent.Write(c.c.(*recorder).out.Bytes())
	frame := sent.Bytes()
	changed := append([]byte{}, frame...)
	changed[len(changed)-1] ^= 1
	open := func(b []byte) error {
		_, _, _, err := s.readSealed(bytes.NewReader(b), 4096)
		return err
	}
	if err := open(changed); err == nil || !strings.Contains(err.Error(), "does not open") {
		t.Errorf("a changed frame: %v", err)
	}
	if err := open(frame); err != nil {
		t.Errorf("the frame as sent: %v", err)
	}
	if err := open(frame); err == nil || !strings.Contains(err.Error(), "does not open") {
		t.Errorf("the frame replayed: %v", err)
	}
}

// nopWrite is a net.Conn whose writes go nowhere.
type nopWrite struct{ net.Conn }

func (nopWrite) Write(p []byte) (int, error)      { return len(p), nil }
func (nopWrite) SetWriteDeadline(time.Time) error { return nil }
