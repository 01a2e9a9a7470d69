package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/proto/prototest"
	"netscript/engine/spec"
)

// messageFor returns a new message of type t to decode into: a map for a
// type whose payload is not a JSON message (the handshake's Hello and
// Welcome are Noise messages; an unknown type has none).
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
	case TypeRunClient:
		return &RunClient{}
	case TypeClientReady:
		return &ClientReady{}
	case TypeSync:
		return &Sync{}
	case TypeGo:
		return &Go{}
	case TypeHeartbeat:
		return &Heartbeat{}
	case TypeClientResult:
		return &ClientResult{}
	}
	return &map[string]any{}
}

// FuzzDecode decodes an arbitrary payload as every message type with the
// strict decoder: never a panic; whatever decodes encodes again to a
// payload that decodes to the same encoding; a RunClient that decodes
// passes TestSpec.Check; and the same object with a field no message has
// is refused, naming the field, for every type with a JSON message.
func FuzzDecode(f *testing.F) {
	for name, p := range recordings(f) {
		f.Add(byte(name.typ), p)
	}
	f.Fuzz(func(t *testing.T, typ byte, p []byte) {
		mt := Type(typ)
		v := messageFor(mt)
		if Decode(mt, p, v) != nil {
			return
		}
		if m, ok := v.(*RunClient); ok {
			if err := m.Test.Check(); err != nil {
				t.Fatalf("RunClient %q decoded, but its test fails Check: %v", p, err)
			}
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
		if q := withUnknownField(p); jsonMessage(mt) && q != nil {
			err := Decode(mt, q, messageFor(mt))
			if err == nil || !strings.Contains(err.Error(), `unknown field "zz_unknown"`) {
				t.Fatalf("%s %q with an unknown field: got %v", mt, q, err)
			}
		}
	})
}

// jsonMessage reports whether t's payload is one of the JSON messages,
// which the strict decoder holds to their fields.
func jsonMessage(t Type) bool {
	_, untyped := messageFor(t).(*map[string]any)
	return !untyped
}

// withUnknownField is the JSON object p with the field "zz_unknown" added
// first, or nil if p is not an object.
func withUnknownField(p []byte) []byte {
	i := bytes.IndexFunc(p, func(r rune) bool { return !strings.ContainsRune(" \t\r\n", r) })
	if i < 0 || p[i] != '{' {
		return nil
	}
	field := `"zz_unknown":0`
	if rest := bytes.TrimLeft(p[i+1:], " \t\r\n"); len(rest) > 0 && rest[0] != '}' {
		field += ","
	}
	return slices.Concat(p[:i+1], []byte(field), p[i+1:])
}

// FuzzTestSpec feeds arbitrary RunClient payloads to the strict decoder
// and the conversion to spec.Spec: never a panic; what decodes passes
// Check; what converts comes back from spec.Spec as the same TestSpec
// (so it goes back on the wire as the same bytes); and what Check passes
// but does not convert is refused for its workload code alone.
func FuzzTestSpec(f *testing.F) {
	for name, p := range recordings(f) {
		if name.typ == TypeRunClient {
			f.Add(p)
		}
	}
	// An open-model test, whose Arrival no recording has.
	open := spec.Default(spec.UDPRR)
	open.Arrival = spec.Arrival{Rate: 10, Kind: spec.ArrivalPoisson, Ramp: []spec.Stage{{Target: 50, Duration: time.Second}}}
	if b, err := AppendFrame(nil, TypeRunClient, RunClient{Test: TestSpecFrom(&open)}); err == nil {
		f.Add(b[5:])
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var m RunClient
		if Decode(TypeRunClient, p, &m) != nil {
			return
		}
		if err := m.Test.Check(); err != nil {
			t.Fatalf("%q decoded, but fails Check: %v", p, err)
		}
		s, err := m.Test.ToSpec()
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "Workload" {
				t.Fatalf("%q passes Check but does not convert: %v", p, err)
			}
			return
		}
		// The conversion clears the previous release's defaults a
		// workload does not take (legacyDefaults); after that, a spec and
		// its wire form convert into each other unchanged.
		back := TestSpecFrom(&s)
		s2, err := back.ToSpec()
		if err != nil || !reflect.DeepEqual(s2, s) {
			t.Fatalf("%q: %+v comes back as %+v (%v)", p, s, s2, err)
		}
		b1, _ := json.Marshal(back)
		if again := TestSpecFrom(&s2); !bytes.Equal(b1, must(json.Marshal(again))) {
			t.Fatalf("%q: encoded as %s, after the round trip as %+v", p, b1, again)
		}
	})
}

var fuzzToken = auth.Token("correct horse battery staple")

// FuzzHandshakeServer plays arbitrary client bytes, after the preamble,
// against the server side of the handshake of a daemon with a token, and
// then reads a request: never a panic, and never a request. A Hello can
// pass (a recorded one, replayed), but what follows it can open only with
// keys that the Hello's sender alone has.
func FuzzHandshakeServer(f *testing.F) {
	sec := auth.NewSecret(fuzzToken) // once: a daemon derives it at start
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewConn(prototest.NewScript(in))
		c.MaxFrame = 4096
		key, err := c.Authenticate(sec, true, time.Second)
		if err != nil {
			if key != nil {
				t.Fatalf("a key with an error on %q", in)
			}
			return
		}
		if typ, p, err := c.Recv(time.Second); err == nil {
			t.Fatalf("a request (%s %q) went through after %q", typ, p, in)
		}
	})
}

// FuzzHandshakeClient plays arbitrary server bytes against the client
// side, with a token and without: never a panic, and never a session (a
// server's Welcome answers the client's own fresh ephemeral key, which no
// input can know).
func FuzzHandshakeClient(f *testing.F) {
	secrets := []auth.Secret{auth.NewSecret(fuzzToken), {}}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, sec := range secrets {
			c := NewConn(prototest.NewScript(in))
			c.MaxFrame = 4096
			if key, err := c.Authenticate(sec, false, time.Second); err == nil || key != nil {
				t.Fatalf("a client (token %v) went on after %q", sec.Set(), in)
			}
		}
	})
}

// must is v, for an encoding that cannot fail.
func must(v []byte, _ error) []byte { return v }

// FuzzSealedFrame changes the bytes of a genuine sealed frame of a session
// that completed the handshake (XOR with the input, repeated over the
// frame; an input of zeros changes nothing) and reads them on the far end:
// never a panic, a changed frame never opens, and the genuine frame sent
// next still does (a failed frame does not spend the session's nonce).
// A second pass reads the input itself as the stream: it never opens.
func FuzzSealedFrame(f *testing.F) {
	s, c, _, _, _, serr, cerr := exchange(f, fuzzToken, fuzzToken)
	if serr != nil || cerr != nil {
		f.Fatal(serr, cerr)
	}
	rec := &recorder{Conn: nopWrite{}}
	c.c = rec
	next := func() []byte { // the client's next sealed frame
		rec.out.Reset()
		if err := c.Send(TypeStop, Stop{}, time.Second); err != nil {
			f.Fatal(err)
		}
		return append([]byte(nil), rec.out.Bytes()...)
	}
	open := func(b []byte) error {
		_, _, _, err := s.readSealed(bytes.NewReader(b), 4096)
		return err
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 1})
	f.Add([]byte{0xff})
	f.Add(make([]byte, 40))
	f.Fuzz(func(t *testing.T, in []byte) {
		frame := next()
		changed := append([]byte(nil), frame...)
		if len(in) > 0 {
			for i := range changed {
				changed[i] ^= in[i%len(in)]
			}
		}
		if bytes.Equal(changed, frame) {
			if err := open(frame); err != nil {
				t.Fatalf("the genuine frame: %v", err)
			}
			return
		}
		if err := open(changed); err == nil {
			t.Fatalf("a frame changed by %x opened", in)
		}
		if err := open(frame); err != nil {
			t.Fatalf("the genuine frame after one changed by %x: %v", in, err)
		}
		if err := open(in); err == nil {
			t.Fatalf("%x opened as a frame", in)
		}
	})
}

// TestMessageForEveryType: FuzzDecode holds every known type's JSON
// message to its fields; only the handshake's binary payloads have none.
func TestMessageForEveryType(t *testing.T) {
	for i := range 256 {
		mt := Type(i)
		binary := mt == TypeHello || mt == TypeWelcome
		if mt.Known() && jsonMessage(mt) == binary {
			t.Errorf("%s: a JSON message %v, want %v", mt, jsonMessage(mt), !binary)
		}
	}
}
