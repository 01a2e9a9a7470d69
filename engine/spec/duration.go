package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxDuration bounds any duration option (one week).
const MaxDuration = 7 * 24 * time.Hour

// ParseDuration reads a duration as scripts write it: a Go duration string
// ("10s", "250ms", "1m30s") or a bare number of seconds ("2.5").
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return Seconds(f)
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (want seconds as a number, or a string such as \"10s\" or \"250ms\")", s)
	}
	if d > MaxDuration {
		return 0, fmt.Errorf("%v is longer than the limit of %v", d, MaxDuration)
	}
	return d, nil
}

// Seconds converts a number of seconds to a duration, rejecting NaN,
// infinities and values beyond MaxDuration.
func Seconds(f float64) (time.Duration, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%v is not a number of seconds", f)
	}
	if f > MaxDuration.Seconds() || f < -MaxDuration.Seconds() {
		return 0, fmt.Errorf("%v seconds is longer than the limit of %v", f, MaxDuration)
	}
	return time.Duration(math.Round(f * 1e9)), nil
}
