package result

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestFlowInterimJSON: a flow's interim samples are its field "interim",
// after every field of the release before (and before the open model's
// "schedule", which came after), and read back unchanged; a flow
// written by the release before (no "interim") reads back with none.
func TestFlowInterimJSON(t *testing.T) {
	retr, cwnd, rtt := uint64(2), uint64(10), 1500.5
	f := &Flow{Index: 1, Test: "TCP_STREAM", Interim: []Sample{
		{T: 0.5, Throughput: 100, Interval: 0.5, Retransmits: &retr, Cwnd: &cwnd, RTT: &rtt},
		{T: 1, Throughput: 120, Interval: 0.5},
	}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), `"tcp":null,"interim":[{"t":0.5,"throughput":100,"interval":0.5,"retransmits":2,"cwnd":10,"rtt":1500.5,"rcv_rtt":null},{"t":1,"throughput":120,"interval":0.5,"retransmits":null,"cwnd":null,"rtt":null,"rcv_rtt":null}],"schedule":null}`) {
		t.Errorf("encoded as %s", b)
	}
	var back Flow
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Interim, f.Interim) {
		t.Errorf("read back %+v (%v), want %+v", back.Interim, err, f.Interim)
	}
	var old Flow
	if err := json.Unmarshal([]byte(`{"index":0,"test":"TCP_RR","throughput":3,"error":"","tcp":null}`), &old); err != nil || old.Interim != nil {
		t.Errorf("a flow of the release before: %+v (%v)", old.Interim, err)
	}
}

// TestAggregateKeepsFlowInterim: aggregate() renumbers the flows but keeps
// each one's own samples, and leaves its inputs alone.
func TestAggregateKeepsFlowInterim(t *testing.T) {
	a := rr("TCP_RR", 100, 10, 1000, 0.001)
	b := rr("TCP_RR", 100, 20, 1000, 0.001, 0.002)
	for i, f := range append(a.Flows, b.Flows...) {
		f.Interim = []Sample{{T: 1, Throughput: float64(i + 1), Interval: 1}}
	}
	agg, err := Aggregate([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range agg.Flows {
		if f.Index != i || len(f.Interim) != 1 || f.Interim[0].Throughput != float64(i+1) {
			t.Errorf("flow %d: index %d, samples %+v", i, f.Index, f.Interim)
		}
	}
	if b.Flows[1].Index != 1 {
		t.Error("Aggregate changed its inputs")
	}
}
