package values

import (
	"fmt"
	"math"
	"reflect"
	"sort"

	"go.starlark.net/starlark"

	"netscript/engine/hist"
	"netscript/engine/result"
)

// latencyDoc documents r.latency and its methods for help().
var latencyDoc = map[string]string{
	"latency": `latency (the distribution of completed transaction times)

Holds a test's completed transaction times in microseconds: count, min,
mean, stddev, p50, p90, p99, p999, max. count, min, max, mean and stddev
are exact; the percentiles come from the full histogram. A percentile q is
the nearest-rank sample, the r-th smallest with r = ceil(q·count) (no
interpolation), reported as the middle of the histogram bucket holding it,
clamped to [min, max]: within 1/256 (0.39 %) of that sample, and exact below
256 ns. Samples above 2^44 − 1 ns (about 4.9 hours) share one overflow
bucket: a percentile whose rank falls among them reports max (every
percentile, if all samples do). stats.percentile, on a list of numbers,
interpolates linearly between the two nearest samples instead (numpy's
default), so the two differ on the same data. Transactions still in flight
at the end are not in latency: see censored. None for stream tests. The
same for each of r.flows, for aggregate() and for confidence().latency
(over every transaction of every run). From the histogram, also:
  percentile(q)    any percentile, 0 ≤ q ≤ 100
  percentiles(qs)  a list of them, one pass
  histogram        the non-empty buckets as (low_us, high_us, count)
  lat = tcp_rr(duration=2).latency
  print(lat.percentile(99.99), lat.percentiles([25, 75]))`,
	"latency.percentile": `latency.percentile(q) -> float

Returns the q-th percentile (0 ≤ q ≤ 100) of the transaction times in
microseconds, from the full histogram: the midpoint of the bucket that
holds the sample of rank ceil(q/100·count), so it is within 1/256 (0.39 %)
of that sample (exact below 0.256 us); percentile(0) is min, percentile(100)
max, percentile(99) is p99. 0 when no transaction completed. Percentiles
of several results merge exactly through aggregate() and
confidence().latency.
  print(tcp_rr(duration=2).latency.percentile(99.99))`,
	"latency.percentiles": `latency.percentiles(qs) -> list

Returns latency.percentile(q) for each q of the list qs, in its order.
  p = tcp_rr(duration=2).latency.percentiles([50, 90, 99, 99.9, 99.99])`,
	"latency.histogram": `latency.histogram -> list

Lists the non-empty buckets of the latency histogram in ascending order as
(low_us, high_us, count) tuples: count transactions took at least low_us
and less than high_us microseconds. The buckets are netscript's
(log-linear: exact to 1 ns below 0.256 us, then 128 per power of two, none
wider than 1/128 of its values); the counts add up to latency.count. Not
in to_dict(): it can have thousands of buckets.
  for low, high, n in tcp_rr(duration=2).latency.histogram:
      print(format(low, "10.3f"), format(high, "10.3f"), n)`,
}

// Latency is a latency summary as scripts see it (r.latency): the fields
// of result.Latency, and, when the full histogram is at hand, percentile(),
// percentiles() and histogram.
type Latency struct {
	*Record
	h *hist.Histogram // nil: not kept (a record written before histograms were)
}

var _ starlark.HasAttrs = (*Latency)(nil)

// latencyMethods are what Latency adds to the summary fields.
var latencyMethods = []string{"histogram", "percentile", "percentiles"}

// NewLatency wraps a latency summary and the histogram it came from (nil
// when not known).
func NewLatency(l *result.Latency, h *hist.Histogram) *Latency {
	return &Latency{Record: NewRecord("latency", l, nil), h: h}
}

// Histogram returns the histogram behind the summary, or nil.
func (l *Latency) Histogram() *hist.Histogram { return l.h }

// Attr returns a summary field, histogram, or a method.
func (l *Latency) Attr(name string) (starlark.Value, error) {
	switch name {
	case "histogram":
		if l.h == nil {
			return starlark.None, nil
		}
		return latencyBuckets(l.h), nil
	case "percentile":
		return starlark.NewBuiltin("latency.percentile", l.percentile).BindReceiver(l), nil
	case "percentiles":
		return starlark.NewBuiltin("latency.percentiles", l.percentiles).BindReceiver(l), nil
	}
	return l.Record.Attr(name)
}

// AttrNames lists the summary fields, to_dict and what Latency adds.
func (l *Latency) AttrNames() []string {
	names := append(l.Record.AttrNames(), latencyMethods...)
	sort.Strings(names)
	return names
}

// FieldNames lists the summary fields, without the methods and the
// histogram, as output's field lists and to_dict() have them.
func (l *Latency) FieldNames() []string {
	var out []string
	for _, n := range l.Record.AttrNames() {
		if n != "to_dict" {
			out = append(out, n)
		}
	}
	return out
}

// percentileArg checks one percentile argument of builtin.
func percentileArg(builtin string, v starlark.Value) (float64, error) {
	q, ok := Number(v)
	if !ok {
		return 0, fmt.Errorf("%s: q must be a number between 0 and 100, got %s %s", builtin, v.Type(), ShortRepr(v))
	}
	if !(q >= 0 && q <= 100) {
		return 0, fmt.Errorf("%s: q must be between 0 and 100 (a percentile, not a fraction), got %s", builtin, v)
	}
	return q, nil
}

// noHist is the error of a method that needs the histogram.
func (l *Latency) noHist(builtin string) error {
	return fmt.Errorf("%s: this latency has no histogram (a result read from a record written before records kept them)", builtin)
}

// percentile implements latency.percentile(q).
func (l *Latency) percentile(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "q", &v); err != nil {
		return nil, err
	}
	q, err := percentileArg(b.Name(), v)
	if err != nil {
		return nil, err
	}
	if l.h == nil {
		return nil, l.noHist(b.Name())
	}
	return starlark.Float(float64(l.h.Percentile(q)) / 1e3), nil
}

// percentiles implements latency.percentiles(qs).
func (l *Latency) percentiles(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "qs", &v); err != nil {
		return nil, err
	}
	var elems []starlark.Value
	switch x := v.(type) {
	case *starlark.List:
		for i := 0; i < x.Len(); i++ {
			elems = append(elems, x.Index(i))
		}
	case starlark.Tuple:
		elems = x
	default:
		return nil, fmt.Errorf("%s: qs must be a list of percentiles such as [50, 99, 99.9], got %s", b.Name(), v.Type())
	}
	qs := make([]float64, len(elems))
	for i, e := range elems {
		q, err := percentileArg(fmt.Sprintf("%s: qs[%d]", b.Name(), i), e)
		if err != nil {
			return nil, err
		}
		qs[i] = q
	}
	if l.h == nil {
		return nil, l.noHist(b.Name())
	}
	ns := make([]int64, len(qs))
	l.h.Percentiles(qs, ns)
	out := make([]starlark.Value, len(ns))
	for i, x := range ns {
		out[i] = starlark.Float(float64(x) / 1e3)
	}
	return starlark.NewList(out), nil
}

// latencyBuckets lists h's non-empty buckets as frozen (low_us, high_us,
// count) tuples, each the half-open range [low, high); the overflow
// bucket ends just past the largest sample.
func latencyBuckets(h *hist.Histogram) *starlark.List {
	var elems []starlark.Value
	h.Buckets(func(lo, hi int64, n uint64) {
		if hi == math.MaxInt64 {
			hi = h.Max()
		}
		elems = append(elems, starlark.Tuple{
			starlark.Float(float64(lo) / 1e3), starlark.Float(float64(hi+1) / 1e3), starlark.MakeUint64(n),
		})
	})
	l := starlark.NewList(elems)
	l.Freeze()
	return l
}

// latencyAttr is the latency field of a result or a flow, with its
// histogram; nil for any other field or value.
func latencyAttr(v reflect.Value, name string) starlark.Value {
	if name != "latency" || !v.CanAddr() {
		return nil
	}
	switch x := v.Addr().Interface().(type) {
	case *result.Result:
		if x.Latency != nil {
			return NewLatency(x.Latency, x.Hist)
		}
	case *result.Flow:
		if x.Latency != nil {
			return NewLatency(x.Latency, x.Hist)
		}
	}
	return nil
}
