package agent

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"netscript/engine/proto"
	"netscript/engine/spec"
)

// FuzzRunClient feeds hostile RunClient payloads to the decoding and the
// checks a daemon applies before it runs a test's client side for a
// script: never a panic, and whatever passes names a server, does not hand
// the client side on, has a netscript control connection (not
// control=False, not a netserver), binds only this machine's own source
// addresses, and fits the daemon's bounds on duration, flows, message
// sizes and socket buffers.
func FuzzRunClient(f *testing.F) {
	a := &Agent{}
	own, err := ownAddrs()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var m proto.RunClient
		if proto.Decode(proto.TypeRunClient, payload, &m) != nil {
			return
		}
		sp, err := m.Test.ToSpec()
		if err != nil {
			return
		}
		if a.check(&sp) != nil {
			return
		}
		l := a.limits()
		if sp.Host == "" || sp.Client != "" || sp.Duration < 0 || sp.Duration > l.MaxDuration ||
			sp.FlowCount() > l.MaxFlows || sp.SendBuffer > l.MaxBuffer || sp.RecvBuffer > l.MaxBuffer ||
			sp.SendSize > l.MaxMessage || (sp.Workload.Messages && (sp.Request > l.MaxMessage || sp.Response > l.MaxMessage)) {
			t.Fatalf("accepted %+v", sp)
		}
		if sp.NoControl || sp.Netserver() {
			t.Fatalf("accepted a test with no netscript control connection: %+v", sp)
		}
		for _, src := range sp.Sources() {
			ip, err := netip.ParseAddr(src)
			if err != nil || !ip.Unmap().WithZone("").IsUnspecified() && !own.has(ip.Unmap().WithZone("")) {
				t.Fatalf("accepted the source address %q, not this machine's", src)
			}
		}
	})
}

var writeCorpus = flag.Bool("write-corpus", false, "write the seed corpus of testdata/fuzz from the table of TestCorpus")

// quote is seed as a Go string literal, as the corpus format has it.
func quote(seed []byte) string { return fmt.Sprintf("%q", seed) }

// TestCorpus keeps the committed seed corpus of FuzzRunClient in step with
// this table (go test -run TestCorpus -write-corpus writes it).
func TestCorpus(t *testing.T) {
	rr := spec.Default(spec.TCPRR)
	rr.Host, rr.Duration = "127.0.0.1", time.Second
	long, handOn, noHost, noControl, foreign := rr, rr, rr, rr, rr
	long.Duration = 2 * time.Hour
	handOn.Client = "198.18.0.2"
	noHost.Host = ""
	noControl.NoControl, noControl.DataPort = true, 53
	foreign.Local = "198.18.0.99"
	cc := spec.Default(spec.TCPCC)
	cc.Host = "127.0.0.1"
	runClient := func(sp spec.Spec) []byte {
		p, err := json.Marshal(proto.RunClient{Test: proto.TestSpecFrom(&sp)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	seeds := map[string][]byte{
		"tcp_rr":       runClient(rr),
		"tcp_cc":       runClient(cc),
		"over_a_limit": runClient(long),
		"hands_on":     runClient(handOn),
		"no_host":      runClient(noHost),
		"no_control":   runClient(noControl),
		"foreign_src":  runClient(foreign),
		"spec_null":    []byte(`{"spec":null}`),
		"spec_array":   []byte(`{"spec":[1,2]}`),
		"bad_workload": []byte(`{"spec":{"Workload":99,"Host":"127.0.0.1"}}`),
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzRunClient")
	for name, seed := range seeds {
		path := filepath.Join(dir, name)
		if *writeCorpus {
			if err := os.WriteFile(path, []byte("go test fuzz v1\n[]byte("+quote(seed)+")\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("seed %s is missing (go test -run TestCorpus -write-corpus): %v", path, err)
		}
	}
}
