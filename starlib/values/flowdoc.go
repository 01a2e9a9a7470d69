package values

import (
	"strings"

	"netscript/engine/spec"
)

// flowDoc documents the elements of result.flows; help(r.flows[0]) and
// help("result.flows") show it.
var flowDoc = map[string]string{
	"result.flows": flowHelp,
	"flow":         flowHelp,
}

// flowHelp is help(r.flows[0]); which workloads have no per-flow count of
// the server's comes from the registry.
var flowHelp = `result.flows[i] -> flow

Holds one flow's own figures in a test of several (one entry for a test of
one flow), in order: what one netperf of a set started together would have
printed. The result's top-level fields are their aggregate.
  index                0-based, in the order of the lists given for local,
                       local_port, data_port
  throughput, elapsed  over the flow's own measured interval
  transactions, discarded, bytes_sent, bytes_received, connects
  latency, censored    the flow's own (RR tests)
  errors, error        failed calls by errno name; why it stopped early
  local_address, local_port, remote_address, data_port
  began, first         when it began its first transaction and completed
                       it, seconds from the common start
  remote               the server's count of the flow's connection (None
                       for ` + noFlowRemote() + `)
  tcp                  its TCP_INFO figures: help("result.tcp")
  interim              with interval: its own samples (t, throughput,
                       interval, retransmits, cwnd, rtt), at its own instants;
                       over sample k the flows' work, retransmits and cwnd
                       add up to result.interim[k]'s
  r = tcp_stream(duration=2, flows=3, interval=0.5)
  print([[s.throughput for s in f.interim] for f in r.flows])
  timeseries([r], file="flows.svg", per_flow=True)`

// noFlowRemote names the workloads whose server cannot count each flow
// apart: the TCP ones by name, then "UDP".
func noFlowRemote() string {
	var names []string
	udp := false
	for _, w := range spec.Workloads() {
		switch {
		case w.PerFlowRemote():
		case w.Datagram:
			udp = true
		default:
			names = append(names, w.Name)
		}
	}
	text := strings.Join(names, ", ")
	if udp {
		text += " and UDP"
	}
	return text
}
