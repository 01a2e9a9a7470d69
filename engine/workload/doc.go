// Package workload holds the data paths of netscript's tests: for each
// workload (TCP_RR, TCP_CRR, UDP_RR, ...) the loop the client runs over the
// measured interval and the loop the server runs to answer it.
//
// Every loop runs on a goroutine locked to its own OS thread and talks to the
// kernel through package sock's raw calls. In steady state a loop allocates
// nothing, takes no lock and sends on no channel: per transaction it does its
// system calls, reads the monotonic clock once, and records the time into a
// histogram. It stops when its limit is reached or when its stop flag is set;
// every blocking call wakes it at least once per sock.Tick to look (socket
// timeouts, or a sock.Ticker on its thread).
//
// Counting follows netperf: throughput is what completed inside the measured
// interval; a transaction in flight at the deadline is not counted (it is
// reported as discarded, so both ends' counts still add up). Stream loops
// count bytes: TCP_STREAM's interval runs until the server has read the last
// byte (the client half-closes and waits for the server's close, as
// netperf does), TCP_MAERTS's ends exactly at the deadline with what came
// later counted apart, and UDP_STREAM's ends at the deadline with loss left
// to the two ends' datagram counts.
//
// A loop may be paced (Pacer: raw nanosleep on an absolute schedule) and
// may take interim samples (Interim: a slice allocated once); neither
// allocates per transaction.
package workload
