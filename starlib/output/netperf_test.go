package output

import (
	"os"
	"strings"
	"testing"
)

// TestNetperfSelectorsDocumented: every netperf selector csv() and kv()
// take is in docs/output.md, and each maps to a field that exists.
func TestNetperfSelectorsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/output.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range NetperfSelectors() {
		if !strings.Contains(string(doc), name) {
			t.Errorf("docs/output.md does not name the selector %s", name)
		}
	}
}
