package values_test

import (
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/result"
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
