package output

// FloatText is how table() prints the float f of field (a dotted path such
// as "latency.mean" or "udp.loss_pct"): latencies with one decimal,
// service demand with three, other figures with two, small values with
// three significant digits. Records print their figures so too.
func FloatText(field string, f float64) string { return outFloat(field, f) }
