package result

import (
	"reflect"
	"testing"
)

// TestRemoteAdd: the far end's counts sum field by field; elapsed is the
// longest; errors merge; peers and unreported fields are listed once, in
// the order first seen; TCP is left alone.
func TestRemoteAdd(t *testing.T) {
	for _, c := range []struct {
		name    string
		r, o    Remote
		want    Remote
		wantNil bool // the errors stay nil
	}{
		{"counts sum, the longest elapsed",
			Remote{Transactions: 1, BytesSent: 2, BytesReceived: 3, Accepts: 4, SendCalls: 5, RecvCalls: 6, Elapsed: 2},
			Remote{Transactions: 10, BytesSent: 20, BytesReceived: 30, Accepts: 40, SendCalls: 50, RecvCalls: 60, Elapsed: 1.5},
			Remote{Transactions: 11, BytesSent: 22, BytesReceived: 33, Accepts: 44, SendCalls: 55, RecvCalls: 66, Elapsed: 2}, true},
		{"errors merge into a map made for them",
			Remote{},
			Remote{Errors: map[string]uint64{"ECONNRESET": 2}},
			Remote{Errors: map[string]uint64{"ECONNRESET": 2}}, false},
		{"errors add up",
			Remote{Errors: map[string]uint64{"ECONNRESET": 1, "EPIPE": 1}},
			Remote{Errors: map[string]uint64{"ECONNRESET": 2}},
			Remote{Errors: map[string]uint64{"ECONNRESET": 3, "EPIPE": 1}}, false},
		{"peers and unreported fields once each",
			Remote{Peers: []string{"198.18.0.1"}, Unreported: []string{"accepts"}},
			Remote{Peers: []string{"198.18.0.2", "198.18.0.1"}, Unreported: []string{"accepts", "peers"}},
			Remote{Peers: []string{"198.18.0.1", "198.18.0.2"}, Unreported: []string{"accepts", "peers"}}, true},
	} {
		r := c.r
		r.Add(&c.o)
		if !reflect.DeepEqual(r, c.want) || (r.Errors == nil) != c.wantNil {
			t.Errorf("%s: %+v, want %+v", c.name, r, c.want)
		}
	}
	mine := &TCP{}
	r := Remote{TCP: mine}
	r.Add(&Remote{TCP: &TCP{}})
	if r.TCP != mine {
		t.Errorf("TCP %p, want the one it had (%p)", r.TCP, mine)
	}
}
