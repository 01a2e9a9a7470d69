package values

import (
	"fmt"
	"math"
	"strings"
)

// FloatText is how table() prints the float f of field (a dotted path such
// as "latency.mean" or "udp.loss_pct"): latencies (microseconds) with one
// decimal, service demand with three, other figures with two, as netperf
// prints them; other small values keep three significant digits rather
// than rounding to zero. Records print their figures so too.
func FloatText(field string, f float64) string {
	if strings.HasPrefix(field, "latency.") || strings.Contains(field, ".latency.") {
		return fmt.Sprintf("%.1f", f)
	}
	if strings.HasSuffix(field, "_sd") {
		return fmt.Sprintf("%.3f", f) // service demand, as netperf prints it
	}
	if a := math.Abs(f); a != 0 && a < 0.1 {
		return fmt.Sprintf("%.3g", f)
	}
	return fmt.Sprintf("%.2f", f)
}
