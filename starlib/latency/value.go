package latency

import (
	"fmt"
	"sort"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"netscript/engine/hist"
	"netscript/engine/result"
	"netscript/starlib/values"
)

// value is a result of rrul() or responsiveness() as scripts see it: named
// fields, and the text print() shows.
type value struct {
	typ   string
	attrs starlark.StringDict
	text  func() string
}

var _ starlark.HasAttrs = (*value)(nil)

// String is what print() shows.
func (v *value) String() string { return v.text() }

// Type is "rrul" or "responsiveness".
func (v *value) Type() string { return v.typ }

// Freeze freezes the fields.
func (v *value) Freeze() { v.attrs.Freeze() }

// Truth is True.
func (v *value) Truth() starlark.Bool { return true }

// Hash refuses: a result is not a key.
func (v *value) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: %s", v.typ) }

// Attr returns a field, or nil for a name it does not have.
func (v *value) Attr(name string) (starlark.Value, error) { return v.attrs[name], nil }

// AttrNames lists the fields.
func (v *value) AttrNames() []string {
	names := make([]string, 0, len(v.attrs))
	for k := range v.attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// resultList is results as a list of result values.
func resultList(rs []*result.Result) *starlark.List {
	l := make([]starlark.Value, len(rs))
	for i, r := range rs {
		l[i] = values.NewResult(r)
	}
	return starlark.NewList(l)
}

// latencyOf is the latency value of the merged histograms of rs (every
// transaction of every probe), with every percentile; None when none of
// them counted a transaction.
func latencyOf(rs []*result.Result) (starlark.Value, *result.Latency, error) {
	h, err := result.MergeHist(rs)
	if err != nil {
		return nil, nil, err
	}
	if h == nil || h.Count() == 0 {
		return starlark.None, nil, nil
	}
	l := result.LatencyOf(h)
	return values.NewLatency(l, h), l, nil
}

// latencyFromHist is the latency value of h; None when it is empty.
func latencyFromHist(h *hist.Histogram) starlark.Value {
	if h == nil || h.Count() == 0 {
		return starlark.None
	}
	return values.NewLatency(result.LatencyOf(h), h)
}

// structOf is a struct value of the given fields, named name.
func structOf(name string, fields starlark.StringDict) *starlarkstruct.Struct {
	return starlarkstruct.FromStringDict(starlark.String(name), fields)
}

// floatOrNone is f, or None when it is not a number.
func floatOrNone(f float64) starlark.Value {
	if f != f {
		return starlark.None
	}
	return starlark.Float(f)
}
