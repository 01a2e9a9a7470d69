package values

import (
	"strings"

	"netscript/engine/spec"
	"netscript/starlib/module"
)

// tcpDoc documents the result fields of the kernel's TCP figures and of
// zerocopy; help("result.tcp") and help("result.zerocopy") show them.
// Which workloads read TCP_INFO per connection and which send with
// zerocopy comes from the registry.
var tcpDoc = map[string]string{
	"result.tcp": `result.tcp, result.remote.tcp, result.flows[i].tcp, result.flows[i].remote.tcp -> tcp or None

Holds the kernel's own view of the test's TCP connections on one end
(TCP_INFO), over the measured interval: read at its start and end on each
long-lived connection, outside the data path; ` + module.AndList(spec.KnobTakers(spec.OptTCPInfo)) + ` read each
connection just before it closes, only with tcp_info=True. result.tcp is the
client's, result.remote.tcp the server's (None against a netserver, or a
netscript server of a release before this), per flow in flows[i].
Counts are sums over the connections, the rest means, with a _max beside:
  connections            connections read (` + strings.Join(perTransactionTCP(), ", ") + `: those whose
                         handshake completed; a refused or unfinished
                         connect has only the kernel's defaults)
  retransmits            segments retransmitted over the interval
                         (the difference of tcpi_total_retrans)
  bytes_retrans          bytes retransmitted over the interval
  rtt, rtt_max, rttvar   smoothed RTT and its variation, µs
  min_rtt                the connections' minimum RTT, µs
  cwnd, cwnd_max         congestion window, segments
  ssthresh               slow-start threshold, segments (0: never left slow start)
  mss                    bytes
  pacing_rate            bits/s (what SO_MAX_PACING_RATE caps)
  delivery_rate          bits/s, the kernel's latest estimate
  busy_time, rwnd_limited, sndbuf_limited
                         µs with data in flight, limited by the peer's
                         receive window, or by the send buffer; each also
                         as *_fraction of the interval (busy_fraction, ...)
  reordering, lost, unacked
  ca_state               open, disorder, cwr, recovery or loss (mixed)
  congestion             the algorithm ("cubic"), or mixed
Interim samples carry retransmits, cwnd, rtt and rcv_rtt (None for UDP).

  r = tcp_stream(duration=5, congestion="bbr")
  print(r.tcp.retransmits, r.tcp.rtt, r.remote.tcp.rwnd_limited_fraction)`,
	"result.zerocopy": `result.zerocopy -> zerocopy or None

Counts what MSG_ZEROCOPY did on the sending end with zerocopy=True
(` + zeroCopySenders() + `), summed over the flows; None
without it:
  sends       sends made with MSG_ZEROCOPY
  completed   of those, the kernel's completions read from the error queue
  copied      of those, sends the kernel copied after all
              (SO_EE_CODE_ZEROCOPY_COPIED), as it does on loopback

  r = tcp_stream(duration=5, zerocopy=True)
  print(r.zerocopy.copied, r.zerocopy.sends)`,
}

// perTransactionTCP names the TCP workloads of the registry that open a
// connection per transaction.
func perTransactionTCP() []string {
	var names []string
	for _, w := range spec.Workloads() {
		if w.PerTransaction && !w.Datagram {
			names = append(names, w.Name)
		}
	}
	return names
}

// zeroCopySenders names the workloads that take zerocopy by the end that
// sends: "tcp_stream, udp_stream; tcp_maerts's server".
func zeroCopySenders() string {
	var client, server []string
	for _, n := range spec.KnobTakers(spec.OptZeroCopy) {
		w, err := spec.LookupWorkload(n)
		switch {
		case err != nil:
			continue
		case w.ServerSends:
			server = append(server, w.Name+"'s server")
		default:
			client = append(client, w.Name)
		}
	}
	text := strings.Join(client, ", ")
	if len(server) > 0 {
		text += "; " + strings.Join(server, ", ")
	}
	return text
}
