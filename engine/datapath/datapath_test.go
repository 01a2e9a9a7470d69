package datapath

import (
	"testing"

	"netscript/engine/spec"
)

// TestEveryWorkloadHasLoops: every workload of the registry has a client
// and a server loop, and has epoll runners exactly where its traits say
// (spec reads MuxClient and MuxServer to choose and to refuse; these loops
// are what runs).
func TestEveryWorkloadHasLoops(t *testing.T) {
	for _, w := range spec.Workloads() {
		l := bindings()[w]
		if l == nil {
			t.Errorf("%s: no loops bound", w)
			continue
		}
		if l.Client == nil || l.Server == nil {
			t.Errorf("%s: a binding without a client or a server loop", w)
		}
		if (l.Mux != nil) != w.MuxClient {
			t.Errorf("%s: MuxClient is %v but the epoll client runner is bound: %v", w, w.MuxClient, l.Mux != nil)
		}
		if (l.MuxServer != nil) != w.MuxServer {
			t.Errorf("%s: MuxServer is %v but the epoll server is bound: %v", w, w.MuxServer, l.MuxServer != nil)
		}
	}
	if len(bindings()) != len(spec.Workloads()) {
		t.Errorf("%d bindings for %d workloads: a binding of a workload the registry does not list", len(bindings()), len(spec.Workloads()))
	}
}

// TestOfUnbound: asking for the loops of a workload nobody bound is a
// programmer's mistake, said with the workload's name.
func TestOfUnbound(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("Of of an unbound workload did not panic")
		}
	}()
	Of(&spec.Workload{Name: "nope"})
}
