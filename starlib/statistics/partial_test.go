package statistics_test

import (
	"errors"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
	"netscript/starlib/values"
)

// TestPartialConfidence: a confidence() loop stopped in its fourth
// iteration keeps the three that finished as a value marked partial; one
// stopped in its second keeps the first iteration's return value.
func TestPartialConfidence(t *testing.T) {
	th, _ := startest.NewThread(t)
	code := `
state = {"i": 0}
def fn():
    state["i"] += 1
    if state["i"] == STOP:
        fail("stopped")
    return [100.0, 120.0, 80.0][state["i"] - 1]
confidence(fn, min=5, max=10)
`
	for _, c := range []struct {
		stop int
		want string
	}{
		{4, "<partial confidence value 100"},
		{2, "100"},
	} {
		pre := starlib.Predeclared()
		pre["STOP"] = starlark.MakeInt(c.stop)
		_, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "c.star", code, pre)
		var pe *values.PartialError
		if !errors.As(err, &pe) {
			t.Fatalf("stop %d: error %v is no PartialError", c.stop, err)
		}
		if !strings.HasPrefix(pe.Value.String(), c.want) || !strings.Contains(err.Error(), "stopped") {
			t.Errorf("stop %d: kept %s (%s), error %v", c.stop, pe.Value, pe.What, err)
		}
		if c.stop == 4 {
			f := pe.Value.(*values.Fields)
			n, _ := f.Attr("iterations")
			p, _ := f.Attr("partial")
			if n.String() != "3" || p != starlark.True || !strings.Contains(pe.What, "3 finished iterations") {
				t.Errorf("partial value: iterations %s, partial %s, %q", n, p, pe.What)
			}
		}
	}
	// A loop that ends is not partial.
	g, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "c.star", `c = confidence(lambda: 5.0, min=2, max=2)`, starlib.Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := g["c"].(*values.Fields).Attr("partial"); p != starlark.False {
		t.Errorf("whole confidence: partial = %v", p)
	}
}
