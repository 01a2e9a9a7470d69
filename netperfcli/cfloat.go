package netperfcli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// cfloat prints a float as C's printf does: "nan" or "-nan" for a NaN
// (by its sign bit), "inf" or "-inf" for an infinity, padded as the verb
// asks; other values as fmt prints them. netperf prints what netserver
// sent in a field it did not fill, such as "-nan".
type cfloat float64

// Format implements fmt.Formatter.
func (v cfloat) Format(st fmt.State, verb rune) {
	f := float64(v)
	var s string
	switch {
	case math.IsNaN(f) && math.Signbit(f):
		s = "-nan"
	case math.IsNaN(f):
		s = "nan"
	case math.IsInf(f, 1):
		s = "inf"
	case math.IsInf(f, -1):
		s = "-inf"
	default:
		var b strings.Builder
		b.WriteByte('%')
		for _, fl := range "-+# 0" {
			if st.Flag(int(fl)) {
				b.WriteRune(fl)
			}
		}
		if w, ok := st.Width(); ok {
			b.WriteString(strconv.Itoa(w))
		}
		if p, ok := st.Precision(); ok {
			b.WriteString("." + strconv.Itoa(p))
		}
		b.WriteRune(verb)
		fmt.Fprintf(st, b.String(), f)
		return
	}
	w, _ := st.Width()
	if st.Flag('-') {
		fmt.Fprintf(st, "%-*s", w, s)
	} else {
		fmt.Fprintf(st, "%*s", w, s)
	}
}
