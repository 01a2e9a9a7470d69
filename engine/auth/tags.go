package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"net/netip"
)

// A session's data proves it belongs to the session, in both directions,
// before any bulk data moves: the client shows the server a tag made from
// the session's data key (so the server sends nothing to a stranger), and
// the server answers with a tag of its own (so the client sends nothing to
// a port that is not the test's endpoint). Only the two ends of the control
// handshake hold the key.
//
//   - A TCP data connection (TCP_RR, the streams, and the one consent
//     connection of TCP_CRR) begins with ConnHello from the client and
//     ConnAck from the server.
//   - A UDP flow begins with a greeting of datagrams, each answer the size
//     of what it answers (below): nothing a stranger sends is answered with
//     more bytes than it sent, and nothing at all without the session's
//     tag.

// TagSize is the length of every tag.
const TagSize = sha256.Size

// DataKey derives a session's data key from the two keys the control
// handshake ended with (one per direction).
func DataKey(k1, k2 [32]byte) []byte {
	h := hmac.New(sha256.New, append(k1[:], k2[:]...))
	h.Write([]byte("netscript/4 data key"))
	return h.Sum(nil)
}

// tag is the tag of label (and a flow's number) under key.
func tag(key []byte, label string, flow uint32) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(label))
	h.Write(binary.BigEndian.AppendUint32(nil, flow))
	return h.Sum(nil)
}

// ConnHello is what the client sends first on a TCP data connection.
func ConnHello(key []byte) []byte { return tag(key, "netscript/4 tcp hello", 0) }

// ConnAck is what the server answers a connection's ConnHello with.
func ConnAck(key []byte) []byte { return tag(key, "netscript/4 tcp ack", 0) }

// Equal compares a received tag with the expected one in constant time.
func Equal(got, want []byte) bool { return len(got) == len(want) && hmac.Equal(got, want) }

// A UDP flow's greeting is four datagrams of GreetingSize bytes each (so
// no answer is larger than what it answers), with retries:
//
//	client → endpoint  Hello    the flow's number and the session's tag
//	endpoint → client  Ack      a cookie for the address and port the Hello came from
//	client → endpoint  Confirm  the cookie back
//	endpoint → client  Done
//
// The endpoint takes the flow's data only from the source that sent the
// cookie back, so only from an address that receives what is sent to it:
// even the test's own client cannot name a victim's address as its flow by
// spoofing it, since the cookie goes to the victim. The cookie is made with
// a key only the endpoint holds (NewCookieKey), each message's tag with the
// session's data key (both ends hold it: the Ack and the Done show the
// client the endpoint is the test's).

// Greeting kinds: the fourth byte of each greeting datagram.
const (
	KindHello   byte = 'h'
	KindAck     byte = 'a'
	KindConfirm byte = 'c'
	KindDone    byte = 'd'
)

// CookieSize is the length of an endpoint's cookie.
const CookieSize = 16

// Cookie is what an endpoint's Ack carries and a Confirm brings back.
type Cookie [CookieSize]byte

// greetingTagSize is the length of a greeting's tag (a truncated HMAC).
const greetingTagSize = 16

// GreetingSize is the size of every greeting datagram: "NS4" and the kind,
// the flow (32 bits, big-endian), the cookie (zero in a Hello), the tag.
const GreetingSize = 4 + 4 + CookieSize + greetingTagSize

const greetingMagic = "NS4"

// Greeting is the datagram of kind for flow.
func Greeting(key []byte, kind byte, flow uint32, c Cookie) []byte {
	b := make([]byte, 0, GreetingSize)
	b = append(append(b, greetingMagic...), kind)
	b = binary.BigEndian.AppendUint32(b, flow)
	b = append(b, c[:]...)
	return append(b, greetingTag(key, b)...)
}

// greetingTag is the tag of a greeting's first 24 bytes.
func greetingTag(key, head []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("netscript/4 udp greeting"))
	h.Write(head[:4+4+CookieSize])
	return h.Sum(nil)[:greetingTagSize]
}

// ParseGreeting reads a datagram that may be a greeting of the session
// whose data key is key: its kind, flow and cookie, and whether it is one.
func ParseGreeting(key, b []byte) (kind byte, flow uint32, c Cookie, ok bool) {
	if len(b) != GreetingSize || string(b[:3]) != greetingMagic {
		return 0, 0, c, false
	}
	if !Equal(b[4+4+CookieSize:], greetingTag(key, b)) {
		return 0, 0, c, false
	}
	copy(c[:], b[8:])
	return b[3], binary.BigEndian.Uint32(b[4:8]), c, true
}

// NewCookieKey is an endpoint's own key for its cookies.
func NewCookieKey() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}

// MakeCookie is the cookie of flow's greeting from src, under an
// endpoint's cookie key.
func MakeCookie(cookieKey []byte, flow uint32, src netip.AddrPort) Cookie {
	h := hmac.New(sha256.New, cookieKey)
	h.Write(binary.BigEndian.AppendUint32(nil, flow))
	b, _ := netip.AddrPortFrom(src.Addr().Unmap(), src.Port()).MarshalBinary()
	h.Write(b)
	var c Cookie
	copy(c[:], h.Sum(nil))
	return c
}
