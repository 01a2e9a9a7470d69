package spec

// UDPRR is netperf's UDP_RR: a request datagram and its response datagram
// on one connected socket per flow, burst more in flight; a response that
// does not come within the timeout counts the transaction as lost.
var UDPRR = &Workload{
	Name: "udp_rr", Netperf: "UDP_RR", Code: 3,
	Unit:     "a request datagram and its response datagram",
	Short:    "request/response datagrams",
	Datagram: true,
	Messages: true,
	Takes:    []string{OptTransactions, OptRequest, OptResponse, OptBurst, OptArrivalRate, OptArrival, OptArrivalRamp, OptTimeout},
}
