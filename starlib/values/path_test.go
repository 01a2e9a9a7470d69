package values_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
	"netscript/starlib/values"
)

// TestField covers dotted lookups and the errors that list valid names.
func TestField(t *testing.T) {
	th, _ := startest.NewThread(t)
	v, err := starlark.EvalOptions(starlib.FileOptions(), th, "t", `tcp_rr(transactions=10)`, starlib.Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := values.Field(v, "latency.count"); err != nil || got.String() != "10" {
		t.Fatalf("latency.count: %v %v", got, err)
	}
	if got, err := values.Field(v, "remote.transactions"); err != nil || got.String() != "10" {
		t.Fatalf("remote.transactions: %v %v", got, err)
	}
	_, err = values.Field(v, "latency.p95")
	if err == nil || !strings.Contains(err.Error(), "unknown field latency.p95: latency has count, max, mean, min, p50, p90, p99, p999, stddev") {
		t.Fatalf("got %v", err)
	}
	_, err = values.Field(v, "thruput")
	if err == nil || !strings.Contains(err.Error(), "unknown field thruput: a result has brand, bytes_received") {
		t.Fatalf("got %v", err)
	}
	nums := strings.Join(values.NumericFields(v), " ")
	for _, want := range []string{"throughput", "latency.p99", "remote.transactions", "config.request"} {
		if !strings.Contains(" "+nums+" ", " "+want+" ") {
			t.Errorf("NumericFields lacks %s: %s", want, nums)
		}
	}
}
