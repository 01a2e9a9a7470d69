package starlib

import (
	"strings"
	"testing"

	"netscript/engine/result"
	"netscript/starlib/values"
)

// TestHelpOfLatencySaysWhatTheHistogramIs: help(r.latency) and
// help(r.censored) state the definitions the figures follow.
func TestHelpOfLatencySaysWhatTheHistogramIs(t *testing.T) {
	for _, c := range []struct {
		v    *values.Record
		want []string
	}{
		{values.NewRecord("latency", &result.Latency{}, nil), []string{"nearest-rank", "ceil(q·count)", "0.39 %", "2^44", "reports max", "interpolates linearly"}},
		{values.NewRecord("censored", &result.Censored{}, nil), []string{"oldest", "sum", "latency.max", "notes"}},
	} {
		got, err := Help(c.v)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("help(%s) lacks %q:\n%s", c.v.Type(), w, got)
			}
		}
	}
}
