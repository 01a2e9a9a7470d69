package values

import (
	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"

	"netscript/engine/result"
)

// ResultJSON is r.to_dict() of a result encoded as JSON, the form
// --json-lines writes.
func ResultJSON(r *result.Result) (string, error) {
	return encodeJSON(Plain(NewResult(r)))
}

// SampleJSON is the to_dict() form of one element of result.interim,
// encoded as JSON.
func SampleJSON(s result.Sample) (string, error) {
	return encodeJSON(Plain(NewRecord("sample", &s, nil)))
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
