package values

// fieldDoc documents the result fields whose reading needs more than the
// line resultDoc gives them; help(r.censored) shows them (help(r.latency)
// is latencyDoc's).
var fieldDoc = map[string]string{
	"censored": `censored (ages of transactions discarded at the end)

Gives oldest and sum, in microseconds: the ages, at the end of the
measured interval, of the RR transactions still in flight then (the
deadline, or a stop): discarded counts them, latency leaves them out (as netperf does), and censored says
how long they had waited: oldest is the age of the oldest, sum the sum of
all their ages (0 when none was in flight). latency.max stays the maximum
over completed transactions; notes says when censored.oldest exceeds it, a
stall the deadline cut short. Each flow has its own; the test's is over
all of them (None for stream tests).
  r = tcp_rr(duration=2)
  print(r.discarded, r.censored.oldest, r.latency.max)`,
}
