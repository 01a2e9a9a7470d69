package values_test

import (
	"strings"
	"testing"

	"netscript/engine/result"
	"netscript/starlib/values"
)

// TestSummaryOfOpenModel: print() of an open-model result says how many of
// its scheduled requests started late, and how many were never sent.
func TestSummaryOfOpenModel(t *testing.T) {
	r := &result.Result{Test: "TCP_RR", Units: result.UnitsTrans, Transactions: 98,
		Schedule: &result.Schedule{Scheduled: 100, Sent: 98, Late: 7}}
	got := values.Summary(r)
	if !strings.Contains(got, ", open model: 7 of 100 scheduled late, 2 never sent)>") {
		t.Errorf("summary %q", got)
	}
	r.Schedule = nil
	if got := values.Summary(r); strings.Contains(got, "open model") {
		t.Errorf("closed model's summary %q", got)
	}
}
