package auth

import (
	"bytes"
	"testing"
)

// FuzzParseGreeting reads arbitrary datagrams as a UDP flow's greeting, as
// an endpoint reads whatever reaches its port: never a panic, and a
// datagram passes only when it is, byte for byte, the greeting the
// session's key makes of the kind, flow and cookie it was read as.
func FuzzParseGreeting(f *testing.F) {
	key := DataKey([32]byte{1}, [32]byte{2})
	var c Cookie
	copy(c[:], "sixteen byte cki")
	for _, k := range []byte{KindHello, KindAck, KindConfirm, KindDone} {
		g := Greeting(key, k, 7, c)
		f.Add(g)
		f.Add(g[:len(g)-1])
		bad := bytes.Clone(g)
		bad[len(bad)-1] ^= 1
		f.Add(bad)
	}
	f.Add([]byte("NS4"))
	f.Fuzz(func(t *testing.T, b []byte) {
		kind, flow, ck, ok := ParseGreeting(key, b)
		if !ok {
			return
		}
		if want := Greeting(key, kind, flow, ck); !bytes.Equal(b, want) {
			t.Fatalf("%x passed as greeting %q of flow %d, which is %x", b, kind, flow, want)
		}
	})
}
