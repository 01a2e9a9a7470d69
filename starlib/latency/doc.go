package latency

// doc documents rrul() and responsiveness() for help().
var doc = map[string]string{
	"rrul": `rrul(host=None, port=None, preset="rrul", streams=4, ...) -> rrul

Runs Realtime Response Under Load, as flent does: a TCP and a UDP
request/response probe alone for idle seconds, then the same probes beside
streams each way (tcp_stream up, tcp_maerts down) for duration seconds, all
started at one instant and sampled every interval seconds. Further
keywords: direction ("both", "up" or "down"), dscp (True: the streams
marked BE, BK (CS1), CS5 and EF in turn and the UDP probe EF, as flent's
rrul), duration ("10s"), idle ("2s"), interval (0.2). preset names a
member of flent's family: "rrul" (4 streams each way, marked), "rrul_be"
(unmarked), "tcp_upload", "tcp_download" (one stream) and
"tcp_bidirectional" (one each way); options given beside it win. A
probe or a stream that does nothing in its phase is a result with none;
a call none of whose tests did anything fails.
The result: latency.idle and latency.loaded (every probe transaction, with
every percentile; latency.ratio is loaded over idle at p50), up and down
(each stream's result, interim samples with throughput, rtt, rcv_rtt, cwnd
and retransmits), probes.idle and probes.loaded, throughput.up and .down
(Mbit/s), ping: each probe's latency over time (ms), and panels: flent's
picture (download, upload, latency) for timeseries() to stack.
  r = rrul(duration=5, streams=2)
  print(r, r.latency.loaded.p99)
  timeseries(r.panels, y={"probe latency (ms)": "latency"}, file="rrul.svg")`,
	"responsiveness": `responsiveness(host=None, port=None, direction="both", ...) -> responsiveness

Measures responsiveness under working conditions as the IETF draft does
(draft-ietf-ippm-responsiveness-09, TCP only): load-generating connections
(tcp_stream up, tcp_maerts down) added one each way every interval until
the moving average of their goodput is stable, foreign probes (tcp_crr: a
new connection, a 1-byte request and response) and self probes (the TCP
RTT of the loaded connections) all along, and the responsiveness of the
last 4 intervals from trimmed means, until it is stable too or
max_duration is up. Further keywords: interval (the draft's ID, 1 s),
max_duration ("30s"), max_connections (16, both ways together).
The result: rpm (round trips per minute, 60000 / ms), confidence and
goodput_confidence (High: stable; Medium: 4 intervals but not stable;
Low: fewer), rating (Low under 300 RPM, Medium under 1000, else High),
foreign_rpm and loaded_rpm with foreign_ms and loaded_ms, foreign (the
probes' latency), goodput, goodput_up and goodput_down (Mbit/s),
idle_ms and idle_rpm (probes before the load), connections.up and .down,
intervals (each one's goodput, moving_average, rpm), streams and probes (the
tests' results). print() shows networkQuality's summary.
  r = responsiveness(host="198.18.0.2")
  print(r)
  print(r.rpm, r.confidence)`,
}
