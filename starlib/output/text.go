package output

import "strings"

// FloatText is how table() prints the float f of field (a dotted path such
// as "latency.mean" or "udp.loss_pct"): latencies with one decimal,
// service demand with three, other figures with two, small values with
// three significant digits. Records print their figures so too.
func FloatText(field string, f float64) string { return outFloat(field, f) }

// Wrap breaks text into lines of at most width characters at spaces, as
// help() wraps its texts.
func Wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// AndList lists names as "a", "a and b" or "a, b and c", as help texts
// name the workloads of the registry that do a thing.
func AndList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
