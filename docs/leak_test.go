package docs

import (
	"os"
	"testing"

	"netscript/internal/leakcheck"
)

// TestMain runs the tests, then checks that they left no process,
// network namespace or listening socket behind (internal/leakcheck).
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
