package proto

import (
	"bytes"
	"errors"
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

// exchange runs the preamble and the token exchange between a server
// holding st and a client holding ct; it returns both keys, every byte
// either side wrote, and both errors.
func exchange(t *testing.T, st, ct auth.Token) (sk, ck, wire []byte, serr, cerr error) {
	t.Helper()
	a, b := pair(t)
	ra, rb := &recorder{Conn: a}, &recorder{Conn: b}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := NewConn(rb)
		if serr = s.Handshake(time.Second, true); serr == nil {
			sk, serr = s.Authenticate(st, true, time.Second)
		}
		b.Close() // what a server does after a failed exchange
	}()
	c := NewConn(ra)
	if cerr = c.Handshake(time.Second, false); cerr == nil {
		ck, cerr = c.Authenticate(ct, false, time.Second)
	}
	a.Close()
	<-done
	return sk, ck, append(ra.out.Bytes(), rb.out.Bytes()...), serr, cerr
}

// TestAuthenticate covers every pairing of tokens.
func TestAuthenticate(t *testing.T) {
	tok := auth.Token("correct horse battery staple")
	other := auth.Token("correct horse battery stapler")
	cases := []struct {
		name       string
		st, ct     auth.Token
		serr, cerr string // error substrings; "" for success
	}{
		// An open server and a client without a token: no key, no error.
		{"both open", nil, nil, "", ""},
		// The same token on both ends: both derive the same key.
		{"same token", tok, tok, "", ""},
		// A token on the server only: the client is told it needs one
		// (the front end says how to give it).
		{"client without token", tok, nil, "the client gave up: this client has no token", "this server requires a token"},
		// A token on the client only: the server cannot prove itself.
		{"server without token", nil, tok, "", "asks for no token, so it cannot prove it holds yours"},
		// Different tokens: both fail, and the client learns only that.
		{"wrong token", tok, other, "the client's proof does not match", "authentication failed: the server does not accept this token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sk, ck, wire, serr, cerr := exchange(t, c.st, c.ct)
			check := func(side string, err error, want string) {
				if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
					t.Errorf("%s: got %v, want %q", side, err, want)
				}
			}
			check("server", serr, c.serr)
			check("client", cerr, c.cerr)
			if c.serr == "" && c.cerr == "" {
				if (c.st == nil) != (sk == nil) || !bytes.Equal(sk, ck) {
					t.Errorf("keys differ: server %x, client %x", sk, ck)
				}
			}
			for _, tk := range []auth.Token{c.st, c.ct} {
				if len(tk) > 0 && bytes.Contains(wire, tk) {
					t.Errorf("the token crossed the wire")
				}
			}
		})
	}
	_, _, _, _, cerr := exchange(t, tok, other)
	if !errors.Is(cerr, ErrAuthFailed) {
		t.Errorf("a wrong token is not ErrAuthFailed: %v", cerr)
	}
	if _, _, _, _, cerr := exchange(t, tok, nil); !errors.Is(cerr, ErrTokenRequired) {
		t.Errorf("no token for a server that asks for one is not ErrTokenRequired: %v", cerr)
	}
	if _, _, _, _, cerr := exchange(t, nil, tok); !errors.Is(cerr, ErrServerOpen) {
		t.Errorf("a token for an open server is not ErrServerOpen: %v", cerr)
	}
}

// TestImpostorServer: a server that does not hold the token cannot make
// the client go on by sending any proof.
func TestImpostorServer(t *testing.T) {
	a, b := pair(t)
	go func() {
		s := NewConn(b)
		if s.Handshake(time.Second, true) != nil {
			return
		}
		n, _ := auth.Nonce()
		s.Send(TypeChallenge, Challenge{Nonce: n}, time.Second)
		var m Auth
		if s.Expect(TypeAuth, &m, time.Second) != nil {
			return
		}
		// Reflect the client's own proof back: the labels differ, so it
		// must not pass.
		s.Send(TypeProof, Proof{MAC: m.MAC}, time.Second)
	}()
	c := NewConn(a)
	if err := c.Handshake(time.Second, false); err != nil {
		t.Fatal(err)
	}
	_, err := c.Authenticate(auth.Token("correct horse battery staple"), false, time.Second)
	if err == nil || !strings.Contains(err.Error(), "the server's proof does not match this token") {
		t.Fatalf("got %v", err)
	}
}

// TestReplay: a recorded client answer does not open a new session,
// because the server's nonce is new each time.
func TestReplay(t *testing.T) {
	tok := auth.Token("correct horse battery staple")
	sn, _ := auth.Nonce()
	cn, _ := auth.Nonce()
	recorded := Auth{Nonce: cn, MAC: auth.ClientMAC(tok, sn, cn)}
	a, b := pair(t)
	errs := make(chan error, 1)
	go func() {
		s := NewConn(b)
		if err := s.Handshake(time.Second, true); err != nil {
			errs <- err
			return
		}
		_, err := s.Authenticate(tok, true, time.Second)
		errs <- err
	}()
	c := NewConn(a)
	if err := c.Handshake(time.Second, false); err != nil {
		t.Fatal(err)
	}
	var ch Challenge
	if err := c.Expect(TypeChallenge, &ch, time.Second); err != nil {
		t.Fatal(err)
	}
	c.Send(TypeAuth, recorded, time.Second)
	var p Proof
	if err := c.Expect(TypeProof, &p, time.Second); err == nil || err.Error() != "server: authentication failed" {
		t.Fatalf("the replayed answer got %v", err)
	}
	if err := <-errs; !errors.Is(err, ErrAuthFailed) {
		t.Fatalf("server: %v", err)
	}
}
