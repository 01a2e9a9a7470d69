package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"netscript/engine/agent"
	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestRemoteClientFlowInterim: a test run on a daemon (client=) brings
// each flow's interim samples back in its ClientResult, as the daemon took
// them; the ClientResult of a daemon of the release before, which has
// none, reads as flows without samples beside the test's own.
func TestRemoteClientFlowInterim(t *testing.T) {
	th := &workload.Threads{}
	a, b := startDaemon(t, th, limits.Limits{}), startDaemon(t, th, limits.Limits{})
	s := specFor(spec.TCPStream, b)
	s.Client, s.Flows = a.String(), 2
	s.Duration, s.Interval = 400*time.Millisecond, 100*time.Millisecond
	res, err := agent.Run(context.Background(), s, client.Options{Threads: th})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interim) == 0 || len(res.Flows) != 2 {
		t.Fatalf("%d samples, %d flows", len(res.Interim), len(res.Flows))
	}
	for i, f := range res.Flows {
		var bytes float64
		for _, smp := range f.Interim {
			bytes += smp.Throughput * smp.Interval * 1e6 / 8
		}
		if len(f.Interim) < len(res.Interim) || bytes < 0.999*float64(f.BytesSent) || bytes > 1.001*float64(f.BytesSent) {
			t.Errorf("flow %d: %d samples adding up to %.0f bytes; it sent %d", i, len(f.Interim), bytes, f.BytesSent)
		}
	}

	raw, err := os.ReadFile("../proto/testdata/v3/ClientResult.tcp_rr_local_run.json")
	if err != nil {
		t.Fatal(err)
	}
	var cr proto.ClientResult
	if err := json.Unmarshal(raw, &cr); err != nil {
		t.Fatal(err)
	}
	var old result.Result
	if err := json.Unmarshal(cr.Result, &old); err != nil {
		t.Fatal(err)
	}
	if len(old.Interim) != 3 || len(old.Flows) != 2 || len(old.Flows[0].Interim) != 0 {
		t.Errorf("the release before: %d samples, %d flows, the first with %d samples", len(old.Interim), len(old.Flows), len(old.Flows[0].Interim))
	}
}
