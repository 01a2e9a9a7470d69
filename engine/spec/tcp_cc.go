package spec

import "netscript/engine/npwire"

// TCPCC is netperf's TCP_CC: a transaction is a connect and a close and
// carries no data; the server accepts and closes first, as netserver
// does, and the client's transaction ends when it has read that close.
// It runs on TCP_CRR's loops with empty requests and responses
// (engine/datapath).
var TCPCC = &Workload{
	Name: "tcp_cc", Netperf: "TCP_CC", Code: 7,
	Unit:           "connect and close, no data: a new connection per transaction",
	Short:          "connect and close per transaction, no data",
	PerTransaction: true,
	Takes:          []string{OptTransactions, OptNoDelay, OptLocalPorts},
	MuxClient:      true,
	NetperfClassic: npwire.TypeDoTCPCC, // netperf 2.7 sends DO_TCP_CC
	TakesKnobs:     []string{OptCongestion, OptNotsentLowat, OptMSS, OptTCPInfo},
}
