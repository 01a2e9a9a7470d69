package spec

// TCPRR is netperf's TCP_RR: a request and its response on one long-lived
// connection per flow, with burst more requests kept in flight.
var TCPRR = &Workload{
	Name: "tcp_rr", Netperf: "TCP_RR", Code: 1,
	Unit:       "a request and its response on one long-lived connection",
	Short:      "request/response on one connection",
	Messages:   true,
	HalfClose:  true,
	Takes:      []string{OptTransactions, OptRequest, OptResponse, OptBurst, OptArrivalRate, OptArrival, OptArrivalRamp, OptNoDelay, OptProtocol},
	MuxClient:  true,
	MuxServer:  true,
	TakesKnobs: []string{OptCongestion, OptNotsentLowat, OptMSS, OptQuickAck},
}
