package netperfcli

import (
	"testing"

	"netscript/engine/result"
)

// TestSizeEnd: the *_SIZE_END selectors print the buffers at the end of the
// test when known, else the ones granted at creation.
func TestSizeEnd(t *testing.T) {
	f := &Figures{Last: &result.Result{Config: result.Config{
		LocalSendBuffer: 16384, LocalSendBufferEnd: 4194304,
		LocalRecvBuffer:  131072, // no end size: a connection per transaction
		RemoteSendBuffer: 16384, RemoteSendBufferEnd: 2626560,
		RemoteRecvBuffer: 131072, // a netscript server reports none
	}}}
	for _, tc := range []struct{ name, got, want string }{
		{"LSS_SIZE_END", lssEnd(f), "4194304"},
		{"LSR_SIZE_END", lsrEnd(f), "131072"},
		{"RSS_SIZE_END", rssEnd(f), "2626560"},
		{"RSR_SIZE_END", rsrEnd(f), "131072"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}
