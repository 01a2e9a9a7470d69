package starlib

// fieldDoc documents the result fields whose reading needs more than the
// line resultDoc gives them; help(r.latency) and help(r.censored) show
// them.
var fieldDoc = map[string]string{
	"latency": `latency (completed transaction times in microseconds)

Summarises count, min, mean, stddev, p50, p90, p99, p999 and max of the
completed transactions of an RR test from netscript's histogram. count,
min, max, mean and stddev are exact. A percentile q is
the nearest-rank sample, the r-th smallest with r = ceil(q·count) (no
interpolation), reported as the middle of the histogram bucket holding it,
clamped to [min, max]: within 1/256 (0.39 %) of that sample, and exact below
256 ns. Samples above 2^44 − 1 ns (about 4.9 hours) share one overflow
bucket: a percentile whose rank falls among them reports max (every
percentile, if all samples do). stats.percentile, on a list of numbers,
interpolates linearly between the two nearest samples instead (numpy's
default), so the two differ on the same data. Transactions still in flight
at the end are not in latency: see censored.
  r = tcp_rr(duration=2)
  print(r.latency.p99, r.latency.max)`,
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
