package record

import (
	"bytes"
	"reflect"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/starlib"
	"netscript/starlib/values"
)

// TestRecordKeepsFlowInterim: each flow's interim samples are written to
// the record and read back, and the result read back shows them as
// r.flows[i].interim and in to_dict(); a record's flows that have none read
// back with an empty list.
func TestRecordKeepsFlowInterim(t *testing.T) {
	run := fixedRun()
	res := run.Results[0].Result
	retr, cwnd := uint64(3), uint64(40)
	res.Interim = []result.Sample{{T: 0.5, Throughput: 300, Interval: 0.5, Retransmits: &retr, Cwnd: &cwnd}}
	res.Flows = []*result.Flow{
		{Index: 0, Test: res.Test, Interim: []result.Sample{{T: 0.5, Throughput: 100, Interval: 0.5, Retransmits: &retr, Cwnd: &cwnd}}},
		{Index: 1, Test: res.Test, Interim: []result.Sample{{T: 0.4999, Throughput: 200, Interval: 0.4999}}},
		{Index: 2, Test: res.Test},
	}
	var b bytes.Buffer
	if err := run.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRun(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := back.Results[0].Result
	if len(got.Flows) != 3 || !reflect.DeepEqual(got.Flows[0].Interim, res.Flows[0].Interim) ||
		!reflect.DeepEqual(got.Flows[1].Interim, res.Flows[1].Interim) || len(got.Flows[2].Interim) != 0 ||
		!reflect.DeepEqual(got.Interim, res.Interim) {
		t.Fatalf("after the round trip: interim %+v, flows %+v", got.Interim, got.Flows)
	}
	r := values.NewResult(got)
	flows, err := values.Field(r, "flows")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 1, 0} {
		f := flows.(*starlark.List).Index(i)
		iv, err := values.Field(f, "interim")
		if err != nil || iv.(*starlark.List).Len() != want {
			t.Errorf("flows[%d].interim: %v (%v), want %d samples", i, iv, err, want)
		}
	}
	th := &starlark.Thread{Name: "to_dict"}
	d, err := starlark.Call(th, mustAttr(t, r, "to_dict"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := starlark.EvalOptions(starlib.FileOptions(), th, "d.star", `d["flows"][0]["interim"][0]["cwnd"], d["flows"][1]["interim"][0]["retransmits"], d["flows"][2]["interim"]`,
		starlark.StringDict{"d": d})
	if err != nil {
		t.Fatal(err)
	}
	if v.String() != "(40, None, [])" {
		t.Errorf("to_dict() of the flows' samples: %s", v)
	}
}

// mustAttr returns the attribute name of v.
func mustAttr(t *testing.T, v starlark.HasAttrs, name string) starlark.Value {
	t.Helper()
	x, err := v.Attr(name)
	if err != nil || x == nil {
		t.Fatalf("%s: %v", name, err)
	}
	return x
}
