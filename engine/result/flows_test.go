package result

import (
	"strings"
	"testing"

	"netscript/engine/hist"
)

func rr(test string, start float64, trans uint64, lat int64, firsts ...float64) *Result {
	h := hist.New()
	for i := uint64(0); i < trans; i++ {
		h.Record(lat)
	}
	r := &Result{Test: test, Units: UnitsTrans, Elapsed: 1, Transactions: trans, Throughput: float64(trans),
		Errors: map[string]uint64{"EADDRNOTAVAIL": 1}, Hist: h, Start: start, Config: Config{Flows: len(firsts)},
		Remote: &Remote{Transactions: trans, Accepts: 1, Peers: []string{"198.18.0.1"}, Errors: map[string]uint64{}}}
	for i, f := range firsts {
		f := f
		b := f / 2 // each flow began half-way to its first completion
		r.Flows = append(r.Flows, &Flow{Index: i, Test: test, Began: &b, First: &f, Hist: h})
	}
	return r
}

// TestAggregate: counts, errors and throughput are summed, latency is over
// every transaction, flows are renumbered in order and the skew spans the
// results' starts.
func TestAggregate(t *testing.T) {
	a := rr("TCP_RR", 100, 1000, 20000, 0.001)
	b := rr("TCP_RR", 100.002, 3000, 40000, 0.0005, 0.0015)
	agg, err := Aggregate([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if agg.Transactions != 4000 || agg.Throughput != 4000 || agg.Errors["EADDRNOTAVAIL"] != 2 {
		t.Errorf("sums: %d transactions, %v/s, errors %v", agg.Transactions, agg.Throughput, agg.Errors)
	}
	if agg.Latency == nil || agg.Latency.Count != 4000 || agg.Latency.P50 < 39 || agg.Latency.Min > 21 {
		t.Errorf("latency %+v, want the 4000 transactions of both", agg.Latency)
	}
	if len(agg.Flows) != 3 || agg.Flows[2].Index != 2 || agg.Config.Flows != 3 {
		t.Errorf("flows: %d, last index %d, config %d", len(agg.Flows), agg.Flows[len(agg.Flows)-1].Index, agg.Config.Flows)
	}
	if agg.StartSkew == nil || *agg.StartSkew < 0.00224 || *agg.StartSkew > 0.00226 {
		t.Errorf("start skew %v, want 2.25 ms (began 100.0005 to 100.00275)", agg.StartSkew)
	}
	if agg.FirstSkew == nil || *agg.FirstSkew < 0.0024 || *agg.FirstSkew > 0.0026 {
		t.Errorf("first skew %v, want 2.5 ms (first 100.001 to 100.0035)", agg.FirstSkew)
	}
	if agg.Remote == nil || agg.Remote.Transactions != 4000 || len(agg.Remote.Peers) != 1 {
		t.Errorf("remote %+v", agg.Remote)
	}
	if a.Transactions != 1000 || a.Hist.Count() != 1000 || len(a.Flows) != 1 || a.Flows[0].Index != 0 {
		t.Error("Aggregate changed its inputs")
	}
}

// TestAggregateBad: kinds must not be mixed; an empty list is an error.
func TestAggregateBad(t *testing.T) {
	_, err := Aggregate([]*Result{rr("TCP_RR", 0, 1, 1), rr("UDP_RR", 0, 1, 1)})
	if err == nil || !strings.Contains(err.Error(), "results[1] is UDP_RR and results[0] is TCP_RR") {
		t.Errorf("mixing kinds: %v", err)
	}
	if _, err := Aggregate(nil); err == nil {
		t.Error("no error for no results")
	}
	// A result without a histogram (read back from a record) gives no
	// latency rather than a latency of some of the transactions.
	c := rr("TCP_RR", 0, 10, 1)
	c.Hist = nil
	agg, err := Aggregate([]*Result{rr("TCP_RR", 0, 10, 1), c})
	if err != nil || agg.Latency != nil {
		t.Errorf("latency %+v, err %v; want none", agg.Latency, err)
	}
}

// TestAggregateUDP: udp_stream's datagram counts are summed and the loss
// recomputed over them.
func TestAggregateUDP(t *testing.T) {
	u := func(sent, got uint64) *Result {
		lost := int64(sent) - int64(got)
		pct := 100 * float64(lost) / float64(sent)
		return &Result{Test: "UDP_STREAM", UDP: &UDP{Sent: sent, Received: &got, Lost: &lost, LossPct: &pct}}
	}
	agg, err := Aggregate([]*Result{u(100, 90), u(300, 300)})
	if err != nil || agg.UDP == nil || agg.UDP.Sent != 400 || *agg.UDP.Received != 390 || *agg.UDP.Lost != 10 || *agg.UDP.LossPct != 2.5 {
		t.Fatalf("%v %+v", err, agg.UDP)
	}
}
