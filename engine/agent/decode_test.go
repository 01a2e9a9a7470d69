package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"netscript/engine/proto"
	"netscript/engine/result"
)

// TestDecodeClientResultStrict: a daemon's result is decoded as strictly
// as the rest of the protocol: a field result.Result does not have, or a
// value of the wrong type, is refused with one line naming the message and
// the field, while every ClientResult recorded from the release before
// (testdata/v3) still decodes.
func TestDecodeClientResultStrict(t *testing.T) {
	recorded, err := filepath.Glob("../proto/testdata/v3/ClientResult.*.json")
	if err != nil || len(recorded) == 0 {
		t.Fatalf("no recorded ClientResult: %v", err)
	}
	for _, path := range recorded {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cr proto.ClientResult
		if err := proto.Decode(proto.TypeClientResult, raw, &cr); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		res, err := decodeClientResult(&cr)
		if err != nil || res.Test != "TCP_RR" || len(res.Flows) != 2 || res.Hist == nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
	}

	good, err := json.Marshal(&result.Result{Test: "TCP_RR", Transactions: 5, Flows: []*result.Flow{{Transactions: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	withField := func(field string) json.RawMessage {
		return json.RawMessage(strings.Replace(string(good), `{"test":`, `{`+field+`,"test":`, 1))
	}
	for _, c := range []struct {
		name string
		cr   proto.ClientResult
		want string // "" accepted
	}{
		{"this release's result", proto.ClientResult{Result: good}, ""},
		{"a field this release does not have", proto.ClientResult{Result: withField(`"goodput":5`)},
			`ClientResult payload: result: unknown field "goodput"`},
		{"an unknown field in a flow", proto.ClientResult{Result: json.RawMessage(strings.Replace(string(good), `"index":0`, `"index":0,"retries":1`, 1))},
			`ClientResult payload: result: unknown field "retries"`},
		{"a count that is not a number", proto.ClientResult{Result: withField(`"discarded":"5"`)},
			`ClientResult payload: result: cannot unmarshal string into Go struct field Result.discarded of type uint64`},
		{"not an object", proto.ClientResult{Result: json.RawMessage(`[]`)},
			`ClientResult payload: result: cannot unmarshal array into Go value of type result.Result`},
		{"histograms for flows it does not have", proto.ClientResult{Result: good, FlowHists: [][]byte{nil, nil}},
			"result: 2 flow histograms for 1 flows"},
	} {
		res, err := decodeClientResult(&c.cr)
		switch {
		case c.want == "" && (err != nil || res.Transactions != 5):
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
