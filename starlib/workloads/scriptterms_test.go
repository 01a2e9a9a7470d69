package workloads

import (
	"errors"
	"fmt"
	"testing"

	"netscript/engine/client"
	"netscript/engine/npwire"
	"netscript/engine/result"
	"netscript/engine/spec"
)

// TestScriptTerms: the engine's typed errors read in a script's syntax,
// wherever they sit in the chain, which is kept; other errors pass as
// they are.
func TestScriptTerms(t *testing.T) {
	nn := &npwire.NotNetserverError{Addr: "127.0.0.1:12866", What: `is a netscript daemon (it greets with "NETSCRPT"), not a netserver`, Netscript: true}
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("tcp_rr: %w", &spec.NetserverUnsupportedError{Option: "client", Why: "a netserver serves netperf"}),
			`tcp_rr: server="netserver": option client= is not supported by netserver (a netserver serves netperf)`},
		{&spec.OptionError{Option: "host", Err: spec.ErrNetserverNeedsHost},
			`host: server="netserver" needs host: the embedded loopback server is netscript's`},
		{&spec.OptionError{Option: "local", Err: &spec.FlowListError{Len: 1, What: "addresses", Flows: 3}},
			"local: a list of 1 addresses for flows=3: give one per flow"},
		{&client.NetserverError{Addr: "127.0.0.1:1", Err: errors.New("nothing listens at 127.0.0.1:1 (connection refused): start netserver -p 1 there")},
			`server="netserver": nothing listens at 127.0.0.1:1 (connection refused): start netserver -p 1 there`},
		{fmt.Errorf("flow 1 of 2: %w", &client.NetserverError{Addr: nn.Addr, Err: nn}),
			`flow 1 of 2: server="netserver": the far end at 127.0.0.1:12866 is a netscript daemon (it greets with "NETSCRPT"), not a netserver: leave server= out, or give server="netscript"`},
		{errors.New("dial tcp: connection refused"), "dial tcp: connection refused"},
	} {
		got := scriptTerms(c.err)
		if got.Error() != c.want {
			t.Errorf("scriptTerms(%v)\n got %q\nwant %q", c.err, got, c.want)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("%q lost its chain", got)
		}
	}
	if scriptTerms(nil) != nil {
		t.Error("nil became an error")
	}
}

// TestScriptNotes: a figure the engine says was not reported is None to a
// script; other notes stay.
func TestScriptNotes(t *testing.T) {
	res := &result.Result{Notes: []string{
		client.NoteNetserver + "accepts",
		client.NoteRemoteCPUUnreported + "netserver reported 450.0 % (it measures a timed connection test over its padded timer; " + npwire.PadAvoided + ")",
		"fastopen: the server refused",
	}}
	scriptNotes(res)
	scriptNotes(nil)
	want := []string{`server="netserver": netserver does not report accepts`, "cpu_util: remote_cpu is None: netserver reported 450.0 % (it measures a timed connection test over its padded timer; transactions= avoids the pad)", "fastopen: the server refused"}
	if fmt.Sprint(res.Notes) != fmt.Sprint(want) {
		t.Errorf("notes %q, want %q", res.Notes, want)
	}
}
