package agent_test

import (
	"context"
	"testing"
	"time"

	"netscript/engine/agent"
	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestRemoteClientOpenModel: a daemon that runs the client side runs the
// open model it is sent (client=), and its result carries the schedule:
// 200 requests a second over 0.5 s on two flows place exactly 100, 50 per
// flow.
func TestRemoteClientOpenModel(t *testing.T) {
	th := &workload.Threads{}
	a, b := startDaemon(t, th, limits.Limits{}), startDaemon(t, th, limits.Limits{})
	s := specFor(spec.TCPRR, b)
	s.Client = a.String()
	s.Flows, s.Duration = 2, 500*time.Millisecond
	s.Arrival.Rate = 200
	res, err := agent.Run(context.Background(), s, client.Options{Threads: th})
	if err != nil {
		t.Fatal(err)
	}
	if sc := res.Schedule; sc == nil || sc.Scheduled != 100 || sc.Sent > sc.Scheduled {
		t.Fatalf("schedule %+v, want 100 scheduled", sc)
	}
	for i, f := range res.Flows {
		if f.Schedule == nil || f.Schedule.Scheduled != 50 {
			t.Errorf("flow %d: schedule %+v, want 50 scheduled", i, f.Schedule)
		}
	}
	if res.Config.ArrivalRate != 200 || res.Config.Client == "" {
		t.Errorf("config: arrival_rate %v, client %q", res.Config.ArrivalRate, res.Config.Client)
	}
}
