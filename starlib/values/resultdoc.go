package values

// ResultDoc is what help() says of a result value: its fields.
const ResultDoc = `result (what every workload returns)

Holds what one test measured, read-only: dir(r) lists the fields,
r.to_dict() gives plain data for json.encode, table()/csv()/kv() lay results
out; docs/results.md describes every field.

  test, brand          "TCP_RR" and so on; the tag given with brand=
  throughput, units    completed transactions per second ("Trans/s"), or
                       10^6 bits/s for stream tests: the test's total over
                       its elapsed (transactions / elapsed; streams: what the
                       receiver counted, for tcp_stream remote.bytes_received
                       * 8 / elapsed / 1e6); each flow has its own
  elapsed              seconds measured: with flows, the longest flow's
  transactions         transactions completed inside the interval
  discarded            in flight at the deadline: sent, not counted
  bytes_sent, bytes_received
  latency              count, min, mean, stddev, p50, p90, p99, p999, max
                       in microseconds (RR tests); percentile(q),
                       percentiles(qs), histogram: help(r.latency)
  censored             oldest, sum: ages in microseconds of the discarded
                       transactions at the end (RR tests); help(r.censored)
  errors               failed calls by errno name; "timeout" for lost UDP
  config               the options in force, the data port and the socket
                       buffers the kernel granted
  local_address, remote_address
  remote               the server's own counts: transactions, bytes_sent,
                       bytes_received, accepts, elapsed, errors, peers
  tcp, remote.tcp      the kernel's TCP_INFO of each end: help("result.tcp")
  zerocopy             with zerocopy=True: help("result.zerocopy")
  schedule             open model (arrival_rate): scheduled, sent, late,
                       on_time, max_behind (µs); None for the closed model
  interim              with interval: samples t, throughput, interval (and
                       retransmits, cwnd, rtt for TCP), one per interval
  flows                each flow's own figures and interim samples:
                       help("result.flows")`
