package auth

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExchange: both ends with the same token agree; a different token
// fails both ways; nonces make every exchange different.
func TestExchange(t *testing.T) {
	tok := Token("correct horse battery staple")
	sn, _ := Nonce()
	cn, _ := Nonce()
	if err := Verify(ClientMAC(tok, sn, cn), ClientMAC(tok, sn, cn)); err != nil {
		t.Fatal(err)
	}
	bad := Token("correct horse battery stapler")
	if err := Verify(ClientMAC(bad, sn, cn), ClientMAC(tok, sn, cn)); err != ErrBadMAC {
		t.Fatalf("a wrong token verified: %v", err)
	}
	if bytes.Equal(ClientMAC(tok, sn, cn), ServerMAC(tok, sn, cn)) {
		t.Fatal("client and server proofs are the same: a reflected proof would pass")
	}
	sn2, _ := Nonce()
	if bytes.Equal(ClientMAC(tok, sn, cn), ClientMAC(tok, sn2, cn)) {
		t.Fatal("a new server nonce gave the same proof: replay possible")
	}
	if bytes.Equal(SessionKey(tok, sn, cn), SessionKey(tok, sn2, cn)) {
		t.Fatal("session keys repeat across sessions")
	}
	k := SessionKey(tok, sn, cn)
	if bytes.Equal(DataTag(k, 1), DataTag(k, 2)) || len(DataTag(k, 1)) != TagSize {
		t.Fatal("data tags do not tell tests apart")
	}
	if err := Verify(nil, ClientMAC(tok, sn, cn)); err != ErrBadMAC {
		t.Fatal("an empty MAC verified")
	}
	if CheckNonce(make([]byte, 31)) == nil || CheckNonce(make([]byte, 32)) != nil {
		t.Fatal("nonce length check")
	}
}

// TestLoadToken covers files, the environment and the bounds.
func TestLoadToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o600)
		return p
	}
	cases := []struct {
		path, env, want, err string
	}{
		{"", "", "", ""}, // nothing set: no token
		{write("good", "  a-long-enough-secret\n"), "", "a-long-enough-secret", ""},
		{write("short", "abc"), "", "", "want at least 16"},
		{write("huge", strings.Repeat("x", MaxTokenSize+1)), "", "", "larger than"},
		{filepath.Join(dir, "missing"), "", "", "no such file"},
		{"", "from-the-environment-var", "from-the-environment-var", ""},
		{"", "short", "", "$NETSCRIPT_TOKEN"},
	}
	for _, c := range cases {
		tok, err := LoadToken(c.path, c.env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q/%q: got %v, want error %q", c.path, c.env, err, c.err)
			}
			continue
		}
		if err != nil || string(tok) != c.want {
			t.Errorf("%q/%q: got %q %v, want %q", c.path, c.env, tok, err, c.want)
		}
	}
}
