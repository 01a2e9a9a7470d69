package client

import (
	"strings"
	"testing"
)

// FuzzNameBytes: whatever a far end sends first is named in one printable
// line, without a panic.
func FuzzNameBytes(f *testing.F) {
	for _, s := range []string{"SSH-2.0-OpenSSH_9.6\r\n", "HTTP/1.1 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n",
		"\x15\x03\x01\x00\x02\x02\x46", "NETSCRP", "220 smtp ESMTP\r\n", "\x00\xff\n\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		s := nameBytes(b)
		if strings.ContainsAny(s, "\r\n") || len(s) > 300 {
			t.Errorf("%q names %q: not one short line", b, s)
		}
	})
}
