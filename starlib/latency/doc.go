package latency

// doc documents rrul() and responsiveness() for help().
var doc = map[string]string{
	"rrul": `rrul(host=None, port=None, preset="rrul", streams=4, ...) -> rrul

Realtime Response Under Load, as flent runs it: a TCP and a UDP
request/response probe alone for idle seconds, then the same probes beside
streams each way (tcp_stream up, tcp_maerts down) for duration seconds, all
started at one instant and sampled every interval seconds. Further
keywords: direction ("both", "up" or "down"), dscp (True: the streams
marked BE, BK (CS1), CS5 and EF in turn and the UDP probe EF, as flent's
rrul), duration ("10s"), idle ("2s"), interval (0.2). preset names a
member of flent's family: "rrul" (4 streams each way, marked), "rrul_be"
(unmarked), "tcp_upload", "tcp_download" (one stream) and
"tcp_bidirectional" (one each way); options given beside it win.
The result: latency.idle and latency.loaded (every probe transaction, with
every percentile; latency.ratio is loaded over idle at p50), up and down
(each stream's result, interim samples with throughput, rtt, rcv_rtt, cwnd
and retransmits), probes.idle and probes.loaded, throughput.up and .down
(Mbit/s), and ping: each probe's latency over time (ms), for timeseries().
  r = rrul(duration=5, streams=2)
  print(r, r.latency.loaded.p99)
  timeseries(r.down + r.up, file="rrul.svg")
  timeseries(r.ping, y="latency", file="ping.svg")`,
}
