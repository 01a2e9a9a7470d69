package proto

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/proto/prototest"
)

// messageFor returns a new message of type t to decode into.
func messageFor(t Type) any {
	switch t {
	case TypeError:
		return &Error{}
	case TypeSetup:
		return &Setup{}
	case TypeReady:
		return &Ready{}
	case TypeStart:
		return &Start{}
	case TypeStarted:
		return &Started{}
	case TypeStop:
		return &Stop{}
	case TypeResults:
		return &Results{}
	case TypeChallenge:
		return &Challenge{}
	case TypeAuth:
		return &Auth{}
	case TypeProof:
		return &Proof{}
	case TypeRunClient:
		return &RunClient{}
	case TypeClientReady:
		return &ClientReady{}
	case TypeSync:
		return &Sync{}
	case TypeGo:
		return &Go{}
	case TypeClientResult:
		return &ClientResult{}
	}
	return &map[string]any{}
}

// FuzzDecode decodes an arbitrary payload as every message type: never a
// panic, and whatever decodes encodes again to a payload that decodes to
// the same encoding.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, typ byte, p []byte) {
		mt := Type(typ)
		v := messageFor(mt)
		if Decode(mt, p, v) != nil {
			return
		}
		b1, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s %q decoded but does not encode: %v", mt, p, err)
		}
		w := messageFor(mt)
		if err := Decode(mt, b1, w); err != nil {
			t.Fatalf("%s: our own encoding %q does not decode: %v", mt, b1, err)
		}
		if b2, _ := json.Marshal(w); !bytes.Equal(b1, b2) {
			t.Fatalf("%s: encoding not stable: %q then %q", mt, b1, b2)
		}
	})
}

var fuzzToken = auth.Token("correct horse battery staple")

// FuzzAuthServer plays arbitrary client frames against the server side of
// the token exchange: never a panic, and never a session without the
// token (the server's nonce is new each time, so no input can hold a
// valid proof).
func FuzzAuthServer(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewConn(prototest.NewScript(in))
		c.MaxFrame = 4096
		key, err := c.Authenticate(fuzzToken, true, time.Second)
		if err == nil || key != nil {
			t.Fatalf("the exchange succeeded on %q", in)
		}
	})
}

// FuzzAuthClient plays arbitrary server frames against the client side:
// never a panic; a client with a token never goes on without the server's
// proof, and one without a token goes on only with an open server.
func FuzzAuthClient(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewConn(prototest.NewScript(in))
		c.MaxFrame = 4096
		if key, err := c.Authenticate(fuzzToken, false, time.Second); err == nil || key != nil {
			t.Fatalf("a client with a token went on after %q", in)
		}
		c = NewConn(prototest.NewScript(in))
		c.MaxFrame = 4096
		key, err := c.Authenticate(nil, false, time.Second)
		if key != nil {
			t.Fatalf("a client without a token got a key from %q", in)
		}
		if err == nil {
			typ, p, _ := ReadFrame(bytes.NewReader(in), 4096)
			var ch Challenge
			if typ != TypeChallenge || Decode(typ, p, &ch) != nil || len(ch.Nonce) != 0 {
				t.Fatalf("a client without a token went on after %q", in)
			}
		}
	})
}
