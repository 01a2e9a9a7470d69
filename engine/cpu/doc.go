// Package cpu measures what a network test costs in CPU and places the
// threads that do the work: system-wide utilisation as netperf reports it,
// process and per-thread CPU time, netperf's service demand, and binding of
// an OS thread to one CPU.
//
// # Three ways to count CPU
//
// System-wide utilisation ([SystemSnapshot], [SystemUtilization]) is what
// netperf's -c/-C print: per-CPU deltas of the /proc/stat counters between a
// start and a stop snapshot, utilisation = 100 − idle %, averaged over the
// CPUs. iowait and steal count as busy, as in netperf. Unlike netperf, the
// guest and guest_nice columns are left out of each CPU's total because the
// kernel already counts them inside user and nice; netperf adds them a second
// time, which only makes a difference on a machine that is itself running
// virtual machines. CPUs that go offline or come online between the two
// snapshots are left out of the figures and listed in
// [Utilization.Skipped]. The counters tick at USER_HZ (normally 100 Hz), so an
// interval needs to be much longer than 10 ms to mean anything.
//
// System-wide figures charge every test running on the machine with the whole
// machine's load: when several tests run at once (or anything else is busy)
// each one's utilisation and service demand are wrong by construction. The
// process and thread figures ([ProcessTime], [ThreadTime]) stay right in that
// case: they count only the CPU time of this process, or of the worker threads
// that did the test's work. [Meter] takes all of them over one interval and
// expresses the process and thread time as a percentage of the whole machine
// so that they compare directly with the system figure.
//
// # Service demand
//
// [DemandPerTransaction] and [DemandPerKB] compute netperf's service demand,
// microseconds of CPU per transaction or per KB (K = 1024), from a
// utilisation percentage; [CPUTimePerTransaction] and [CPUTimePerKB] do the
// same from measured CPU time.
//
// # Threads and binding
//
// [ThreadTime], [Bind] and [Affinity] act on the calling OS thread, so the
// goroutine that calls them must be locked to its thread with
// runtime.LockOSThread for the whole span it measures or runs bound.
// A goroutine that has bound its thread should either restore the old
// affinity before runtime.UnlockOSThread or simply return while still locked,
// in which case the Go runtime throws the thread away instead of handing the
// binding on to some other goroutine.
//
// The Linux-specific code (/proc, /sys, getrusage, sched_setaffinity) lives in
// the _linux.go files; on other systems those functions return an error
// wrapping errors.ErrUnsupported. The parsers and the arithmetic are portable.
package cpu
