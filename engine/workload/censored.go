package workload

import "time"

// Censored is how old the transactions a client loop discarded at the end
// of its interval were (those in flight at the deadline, or at Stop): a
// transaction that has not completed when the clock runs out has no
// latency, but it had been waiting this long, and a stall at the deadline
// must not vanish from the figures because of it.
type Censored struct {
	Count  uint64        // transactions counted here (each is also in Discarded)
	Oldest time.Duration // the age of the oldest at the end of the interval
	Sum    time.Duration // the sum of their ages
}

// Add notes one transaction discarded at age.
func (c *Censored) Add(age time.Duration) {
	if age < 0 {
		age = 0
	}
	c.Count++
	c.Sum += age
	c.Oldest = max(c.Oldest, age)
}

// AddRing notes the inflight transactions of a ring of send times (the
// oldest at head), at age at minus each one's send time.
func (c *Censored) AddRing(at time.Duration, sent []time.Duration, head, inflight int) {
	if len(sent) == 0 {
		return
	}
	for i := 0; i < inflight; i++ {
		c.Add(at - sent[(head+i)%len(sent)])
	}
}

// endAt is when a loop's interval ended for its censored transactions: the
// deadline if that ended it, else now (Stop).
func (l *Loop) endAt(byDeadline bool) time.Duration {
	if byDeadline {
		return l.dead
	}
	return time.Since(l.Start)
}

// censorRing notes the inflight transactions of a ring of send times
// (oldest at head) as censored, unless the loop failed (then they are not
// discarded either).
func (l *Loop) censorRing(byDeadline bool, sent []time.Duration, head, inflight int) {
	if l.Err != nil {
		return
	}
	l.Result.Censored.AddRing(l.endAt(byDeadline), sent, head, inflight)
}
