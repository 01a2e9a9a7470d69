package record

import (
	"fmt"
	"strings"
)

// ChecksText is the run's checks as show prints them, one line each
// ("PASS name: measured (wanted bound)") after a count; "" without any.
func (run *Run) ChecksText() string {
	if len(run.Checks) == 0 {
		return ""
	}
	failed := 0
	var b strings.Builder
	for _, c := range run.Checks {
		verdict := "PASS"
		if !c.Pass {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(&b, "%s %s: %s (wanted %s)\n", verdict, c.Name, c.Measured, c.Bound)
	}
	return fmt.Sprintf("checks: %d, %d failed\n", len(run.Checks), failed) + b.String()
}
