package auth

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTags: both ends of a session make the same tags; the client's and
// the server's differ (a reflected tag does not pass), flows differ, and
// another session's key makes other tags.
func TestTags(t *testing.T) {
	var k1, k2, k3 [32]byte
	k1[0], k2[0], k3[0] = 1, 2, 3
	key, other := DataKey(k1, k2), DataKey(k1, k3)
	if !bytes.Equal(ConnHello(key), ConnHello(DataKey(k1, k2))) || len(ConnHello(key)) != TagSize {
		t.Fatal("the two ends' tags differ")
	}
	if bytes.Equal(ConnHello(key), ConnAck(key)) || bytes.Equal(ConnHello(key), ConnHello(other)) {
		t.Fatal("a hello equals an ack, or another session's hello")
	}
	var c Cookie
	c[0] = 9
	h := Greeting(key, KindConfirm, 7, c)
	if len(h) != GreetingSize {
		t.Fatal("a greeting's size")
	}
	if k, f, got, ok := ParseGreeting(key, h); !ok || k != KindConfirm || f != 7 || got != c {
		t.Fatalf("ParseGreeting of a Confirm: %c %d %x %v", k, f, got, ok)
	}
	changed := func(i int) []byte {
		b := append([]byte{}, h...)
		b[i]++
		return b
	}
	for name, b := range map[string][]byte{
		"another session's": Greeting(other, KindConfirm, 7, c),
		"short":             h[:GreetingSize-1],
		"long":              append(append([]byte{}, h...), 0),
		"another kind":      changed(3),
		"another flow":      changed(7),
		"another cookie":    changed(8),
		"another tag":       changed(GreetingSize - 1),
	} {
		if _, _, _, ok := ParseGreeting(key, b); ok {
			t.Errorf("%s passed as a greeting", name)
		}
	}
	ck := NewCookieKey()
	a, b := netip.MustParseAddrPort("198.18.0.1:5000"), netip.MustParseAddrPort("198.18.0.1:5001")
	c1 := MakeCookie(ck, 1, a)
	if c1 != MakeCookie(ck, 1, netip.MustParseAddrPort("[::ffff:198.18.0.1]:5000")) || c1 == MakeCookie(ck, 1, b) ||
		c1 == MakeCookie(ck, 2, a) || c1 == MakeCookie(NewCookieKey(), 1, a) {
		t.Fatal("cookies do not tell sources, flows or endpoints apart")
	}
}

// TestSecret: the same token gives the same key, another token another;
// no token is the zero Secret.
func TestSecret(t *testing.T) {
	a, b := NewSecret(Token("correct horse battery staple")), NewSecret(Token("correct horse battery stapler"))
	if !a.Set() || len(a.PSK()) != 32 || bytes.Equal(a.PSK(), b.PSK()) {
		t.Fatal("secrets")
	}
	if !bytes.Equal(a.PSK(), NewSecret(Token("correct horse battery staple")).PSK()) {
		t.Fatal("a token gave two keys")
	}
	if NewSecret(nil).Set() {
		t.Fatal("no token is a secret")
	}
}

// TestLoadToken covers files, the value from the environment and the
// bounds.
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
		{write("good2", "a-long-enough-secret"), "the file comes first", "a-long-enough-secret", ""},
		{write("short", "abc"), "", "", "want at least 16"},
		{write("huge", strings.Repeat("x", MaxTokenSize+1)), "", "", "larger than"},
		{filepath.Join(dir, "missing"), "", "", "no such file"},
		{dir, "", "", "not a regular file (a directory)"},
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

// TestTokenFileNotRegular: a token file that never ends (/dev/zero) or
// blocks (a FIFO with no writer) is refused at once, without reading it:
// the daemon used to run out of memory on the first and hang on the second.
func TestTokenFileNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero": "not a regular file (a character device)",
		fifo:        "not a regular file (a FIFO)",
	} {
		done := make(chan error, 1)
		go func() { _, err := LoadToken(path, ""); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %v, want %q", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: LoadToken did not return", path)
		}
	}
}
