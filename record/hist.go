package record

import (
	"bytes"
	"encoding/json"
	"fmt"

	"netscript/engine/hist"
)

// runResultFields is RunResult without its methods, so that MarshalJSON
// and UnmarshalJSON can use the default encoding of its fields.
type runResultFields RunResult

// runResultJSON is a RunResult as a record holds it: its fields, then the
// result's latency histograms in hist's compact binary form (base64 in
// JSON), as the control protocol carries them. Records written before
// netscript kept histograms have neither field and read with none.
type runResultJSON struct {
	*runResultFields
	Hist      []byte   `json:"hist,omitempty"`       // Result.Hist
	FlowHists [][]byte `json:"flow_hists,omitempty"` // each of Result.Flows' Hist, null where a flow has none
}

// histError is a histogram of a record that does not decode; DecodeRun
// says the record is corrupt.
type histError struct{ err error }

func (e *histError) Error() string { return e.err.Error() }
func (e *histError) Unwrap() error { return e.err }

// MarshalJSON writes the result and its histograms.
func (rr RunResult) MarshalJSON() ([]byte, error) {
	out := runResultJSON{runResultFields: (*runResultFields)(&rr)}
	if res := rr.Result; res != nil {
		var err error
		if res.Hist != nil {
			if out.Hist, err = res.Hist.MarshalBinary(); err != nil {
				return nil, err
			}
		}
		any := false
		hs := make([][]byte, len(res.Flows))
		for i, f := range res.Flows {
			if f != nil && f.Hist != nil {
				if hs[i], err = f.Hist.MarshalBinary(); err != nil {
					return nil, err
				}
				any = true
			}
		}
		if any {
			out.FlowHists = hs
		}
	}
	// As Encode: "<" and "&" in brands and errors stay as written.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// UnmarshalJSON reads a result and, when the record has them, its
// histograms into Result.Hist and each flow's Hist. A histogram that does
// not decode, or a count of flow histograms that is not the count of
// flows, is an error: the record is damaged.
func (rr *RunResult) UnmarshalJSON(b []byte) error {
	in := runResultJSON{runResultFields: (*runResultFields)(rr)}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	res := rr.Result
	if res == nil {
		if len(in.Hist) > 0 || len(in.FlowHists) > 0 {
			return &histError{fmt.Errorf("histograms without a result")}
		}
		return nil
	}
	if len(in.Hist) > 0 {
		res.Hist = hist.New()
		if err := res.Hist.UnmarshalBinary(in.Hist); err != nil {
			return &histError{fmt.Errorf("the latency histogram of a %s result: %w", res.Test, err)}
		}
	}
	if len(in.FlowHists) > 0 && len(in.FlowHists) != len(res.Flows) {
		return &histError{fmt.Errorf("%d flow histograms for the %d flows of a %s result", len(in.FlowHists), len(res.Flows), res.Test)}
	}
	for i, fb := range in.FlowHists {
		if len(fb) == 0 || res.Flows[i] == nil {
			continue
		}
		h := hist.New()
		if err := h.UnmarshalBinary(fb); err != nil {
			return &histError{fmt.Errorf("the latency histogram of flow %d of a %s result: %w", i, res.Test, err)}
		}
		res.Flows[i].Hist = h
	}
	return nil
}
