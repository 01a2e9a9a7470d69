package latency

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"netscript/engine/client"
	"netscript/engine/result"
)

// TestNothingIsResult: doing nothing in its time is a result for a probe
// and for a stream of rrul's (starvable), a failure for anything else, and
// any other error is a failure for all.
func TestNothingIsResult(t *testing.T) {
	nothing := &client.TestError{Err: &client.NoWorkError{Workload: "tcp_maerts", Account: "no byte arrived from the server"}}
	other := fmt.Errorf("dial 198.18.0.2:12866: %w", errors.New("connection refused"))
	for _, c := range []struct {
		name string
		t    test
		err  error
		want bool
	}{
		{"probe, nothing", test{probe: true}, nothing, true},
		{"rrul stream, nothing", test{load: true, starvable: true}, nothing, true},
		{"responsiveness load, nothing", test{load: true}, nothing, false},
		{"plain test, nothing", test{}, nothing, false},
		{"probe, refused", test{probe: true}, other, false},
		{"rrul stream, refused", test{load: true, starvable: true}, other, false},
		{"rrul stream, cancelled", test{load: true, starvable: true}, context.Canceled, false},
	} {
		if got := c.t.nothingIsResult(c.err); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestNothingDone: a call is an error only when none of its tests did
// anything, and the error names the first and what it counted.
func TestNothingDone(t *testing.T) {
	mk := func(name, workload string) test {
		tt, err := newTest(name, workload, target{host: "198.18.0.2"}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	tests := []test{mk("TCP RR BE", "tcp_rr"), mk("TCP upload BE", "tcp_stream"), mk("TCP download BE", "tcp_maerts")}
	idle := []*result.Result{
		{Units: result.UnitsTrans, Remote: &result.Remote{}},
		{Units: result.UnitsBits, BytesSent: 4096, Remote: &result.Remote{}},
		{Units: result.UnitsBits, Remote: &result.Remote{}},
	}
	for _, c := range []struct {
		name string
		set  func([]*result.Result)
		want string // "": no error
	}{
		{"the probe answered", func(rs []*result.Result) { rs[0].Transactions = 3 }, ""},
		{"the upload arrived", func(rs []*result.Result) { rs[1].Remote.BytesReceived = 4096 }, ""},
		{"the download arrived", func(rs []*result.Result) { rs[2].BytesReceived = 1 }, ""},
		{"nothing at all", func([]*result.Result) {}, "rrul: none of its 3 tests did anything; the first: TCP RR BE: tcp_rr: no transaction completed"},
	} {
		rs := make([]*result.Result, len(idle))
		for i, r := range idle {
			cp := *r
			rem := *r.Remote
			cp.Remote = &rem
			rs[i] = &cp
		}
		c.set(rs)
		err := nothingDone("rrul", tests, rs)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q...", c.name, err, c.want)
		}
	}
}
