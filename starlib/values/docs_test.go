package values_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/internal/doccheck"
	"netscript/starlib/values"
)

// TestDocsCoverResultFields: every field of a result is described in
// docs/results.md.
func TestDocsCoverResultFields(t *testing.T) {
	docs := map[string]string{"docs/results.md": doccheck.Read(t, "../../docs")["docs/results.md"]}
	r := values.NewResult(&result.Result{})
	for _, f := range r.AttrNames() {
		if _, method := mustAttr(t, r, f).(*starlark.Builtin); method {
			continue // to_dict
		}
		if len(doccheck.DocumentedIn(docs, f)) == 0 {
			t.Errorf("result field %s is not in docs/results.md: add a row starting \"| `%s` |\" to its table of fields, or a \"## ...\" section there with a list item \"- `%s`: ...\"", f, f, f)
		}
	}
}

// mustAttr returns the attribute name of v.
func mustAttr(t *testing.T, v starlark.HasAttrs, name string) starlark.Value {
	t.Helper()
	x, err := v.Attr(name)
	if err != nil || x == nil {
		t.Fatalf("%s: %v", name, err)
	}
	return x
}

// TestHelpStatesTheRegistry: the help texts that name workloads name
// those the registry says: every workload that reads TCP_INFO per
// connection (tcp_info=True) in help("result.tcp"), every one that sends
// with zerocopy in help("result.zerocopy"), every TCP one whose server
// cannot count each flow apart in help("result.flows"); a new workload
// with those traits is named without an edit of the text.
func TestHelpStatesTheRegistry(t *testing.T) {
	help := values.Module.Help
	for _, w := range spec.Workloads() {
		if w.TakesKnob(spec.OptTCPInfo) && !strings.Contains(help["result.tcp"], w.Name+" ") {
			t.Errorf("help(\"result.tcp\") does not name %s, which reads TCP_INFO per connection", w.Name)
		}
		if w.TakesKnob(spec.OptZeroCopy) && !strings.Contains(help["result.zerocopy"], w.Name) {
			t.Errorf("help(\"result.zerocopy\") does not name %s, which takes zerocopy", w.Name)
		}
		if !w.PerFlowRemote() && !w.Datagram && !strings.Contains(help["result.flows"], w.Name) {
			t.Errorf("help(\"result.flows\") does not name %s, whose server cannot count each flow", w.Name)
		}
		if w.PerFlowRemote() && strings.Contains(help["result.flows"], " "+w.Name+",") {
			t.Errorf("help(\"result.flows\") names %s among the workloads without a per-flow remote", w.Name)
		}
	}
}
