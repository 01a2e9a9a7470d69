package spec

// TCPCRR is netperf's TCP_CRR: every transaction opens a connection, sends
// the request, reads the response and the server's close, and closes.
var TCPCRR = &Workload{
	Name: "tcp_crr", Netperf: "TCP_CRR", Code: 2,
	Unit:           "connect, request, response, close: a new connection per transaction",
	Short:          "connect, request, response, close per transaction",
	PerTransaction: true,
	Messages:       true,
	Takes: []string{OptTransactions, OptRequest, OptResponse, OptNoDelay, OptFastOpen, OptLocalPorts, OptProtocol,
		OptArrivalRate, OptArrival, OptArrivalRamp},
	MuxClient:  true,
	TakesKnobs: []string{OptCongestion, OptNotsentLowat, OptMSS, OptTCPInfo},
}
