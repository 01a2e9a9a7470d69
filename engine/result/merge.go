package result

import (
	"fmt"

	"netscript/engine/hist"
)

// MergeHist returns one histogram holding every transaction time of rs, so
// that percentiles over several runs (confidence iterations, the sides of a
// comparison) are the percentiles of all the transactions together rather
// than an average of per-run percentiles, which has no meaning. The results'
// own histograms are not changed.
//
// It returns nil, nil when rs is empty or any result has no histogram (a
// stream test, or a result read back from a record without one): a merged
// figure that silently left runs out would be wrong.
func MergeHist(rs []*Result) (*hist.Histogram, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	for _, r := range rs {
		if r == nil || r.Hist == nil {
			return nil, nil
		}
	}
	h := hist.New()
	for i, r := range rs {
		if err := h.Merge(r.Hist); err != nil {
			return nil, fmt.Errorf("merging the latency of result %d: %w", i+1, err)
		}
	}
	return h, nil
}

// MergeLatency is the latency summary of the merged histograms of rs (see
// MergeHist), or nil when there is nothing to merge.
func MergeLatency(rs []*Result) (*Latency, error) {
	h, err := MergeHist(rs)
	if err != nil || h == nil {
		return nil, err
	}
	return LatencyOf(h), nil
}
