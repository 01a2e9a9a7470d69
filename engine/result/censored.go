package result

import (
	"fmt"
	"time"
)

// Censored is what became of the transactions in flight when the measured
// interval ended (the deadline, or a stop): they are discarded, as netperf
// does, and not in latency, but each had been waiting since it was sent.
// Oldest is the age of the oldest at the end of the interval and Sum the
// sum of all their ages, both in microseconds (as latency); 0 when none
// was in flight. latency.max stays the maximum over completed
// transactions, and a note says when Oldest exceeds it: a stall the
// deadline cut short.
type Censored struct {
	Oldest float64 `json:"oldest"`
	Sum    float64 `json:"sum"`
}

// CensoredOf converts a loop's oldest and summed ages to microseconds.
func CensoredOf(oldest, sum time.Duration) *Censored {
	return &Censored{Oldest: float64(oldest) / 1e3, Sum: float64(sum) / 1e3}
}

// Merge adds o's censored transactions to c.
func (c *Censored) Merge(o *Censored) {
	if o == nil {
		return
	}
	c.Oldest = max(c.Oldest, o.Oldest)
	c.Sum += o.Sum
}

// CensoredNote is the note of a result whose oldest censored transaction
// is older than its slowest completed one, or "" if it is not.
func CensoredNote(c *Censored, l *Latency) string {
	if c == nil || c.Oldest <= 0 {
		return ""
	}
	completed := 0.0
	if l != nil {
		completed = l.Max
	}
	if c.Oldest <= completed {
		return ""
	}
	return fmt.Sprintf("a transaction in flight when the interval ended had waited %.0f us, longer than the slowest completed one (latency.max %.0f us); "+
		"it is discarded, not in latency: see censored", c.Oldest, completed)
}

// mergeCensored adds o to c, allocating c if need be; nil and nil stay nil
// (streams have none).
func mergeCensored(c, o *Censored) *Censored {
	if o == nil {
		return c
	}
	if c == nil {
		c = &Censored{}
	}
	c.Merge(o)
	return c
}
