// Package mux runs many flows of a request/response test on few threads,
// and serves many connections of a TCP stream test the same way
// (ServeStream, ServeMaerts), so that a daemon's threads do not grow with
// its clients' flows.
//
// A thread per flow is the cheapest way to drive one connection, and
// package workload does that; but a thousand flows would need a thousand
// threads, each holding a scheduler slot while it blocks. Here each thread
// owns an epoll instance and a share of the flows, all on non-blocking
// sockets: the only blocking call is epoll_wait, bounded by sock.Tick, and
// a flow's next request goes out the moment its response is complete.
//
// Per flow, counting follows package workload exactly: transactions
// completed inside the measured interval, the one in flight at the deadline
// discarded, latency per transaction into the flow's own histogram. Nothing
// is allocated per transaction.
package mux
