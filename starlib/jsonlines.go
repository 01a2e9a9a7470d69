package starlib

import (
	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"

	"netscript/engine/client"
	"netscript/engine/result"
)

// alsoInterim returns a callback that gives each interim sample to first
// and then, if set, to shown (the live display).
func alsoInterim(first, shown func(client.Interim)) func(client.Interim) {
	return func(i client.Interim) {
		first(i)
		if shown != nil {
			shown(i)
		}
	}
}

// ResultJSON is r.to_dict() of a result encoded as JSON, the form
// --json-lines writes.
func ResultJSON(r *result.Result) (string, error) {
	return encodeJSON(plainValue(NewResult(r)))
}

// SampleJSON is the to_dict() form of one element of result.interim,
// encoded as JSON.
func SampleJSON(s result.Sample) (string, error) {
	return encodeJSON(plainValue(NewRecord("sample", &s, nil)))
}

// encodeJSON is json.encode of a plain value.
func encodeJSON(v starlark.Value) (string, error) {
	enc := json.Module.Members["encode"]
	out, err := starlark.Call(&starlark.Thread{Name: "json-lines"}, enc, starlark.Tuple{v}, nil)
	if err != nil {
		return "", err
	}
	return string(out.(starlark.String)), nil
}
