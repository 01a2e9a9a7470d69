package record

import (
	"bytes"
	"testing"

	"netscript/engine/result"
)

// TestRecordKeepsCensored: a result's censored figures and each flow's are
// written to the record and read back.
func TestRecordKeepsCensored(t *testing.T) {
	run := fixedRun()
	res := run.Results[0].Result
	res.Censored = &result.Censored{Oldest: 300000.5, Sum: 300010.25}
	res.Flows = []*result.Flow{{Index: 0, Test: res.Test, Censored: &result.Censored{Oldest: 300000.5, Sum: 300010.25}}}
	var b bytes.Buffer
	if err := run.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRun(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := back.Results[0].Result
	if got.Censored == nil || *got.Censored != *res.Censored || len(got.Flows) != 1 || got.Flows[0].Censored == nil ||
		*got.Flows[0].Censored != *res.Flows[0].Censored {
		t.Errorf("censored %+v, flows %+v after the round trip", got.Censored, got.Flows)
	}
}
