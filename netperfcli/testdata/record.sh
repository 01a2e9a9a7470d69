#!/bin/sh
# record.sh PORT: records golden transcripts from the real netperf 2.7.1
# (../shared/peers/netperf-2.7.1) against a netserver listening on
# 127.0.0.1:PORT (netserver -D -p PORT -L 127.0.0.1). Each file holds the
# command line (after "$ netperf -H 127.0.0.1 -p PORT"), the output and the
# exit status.
set -u
port=$1
PATH=/work/shared/peers/netperf-2.7.1:$PATH
cd "$(dirname "$0")/golden"
rec() { # rec NAME ARGS...
	name=$1; shift
	{ echo "\$ netperf $*"; netperf -H 127.0.0.1 -p "$port" "$@" 2>&1; echo "[exit=$?]"; } > "$name.txt"
}
for t in TCP_RR TCP_CRR UDP_RR TCP_STREAM TCP_MAERTS UDP_STREAM TCP_CC; do
	l=$(echo $t | tr A-Z a-z)
	rec ${l}_plain -t $t -l 1
	rec ${l}_p0_brand -t $t -l 1 -P 0 -B brand42
	rec ${l}_cpu -t $t -l 1 -c -C
	rec ${l}_cpu_p0 -t $t -l 1 -c -C -P 0 -B brand42
	rec ${l}_conf -t $t -l 1 -i 3,3 -I 99,1
	rec ${l}_brand -t $t -l 1 -B brand42
done
rec tcp_rr_sizes -t TCP_RR -l 1 -- -r 128,4096
rec tcp_rr_burst -t TCP_RR -l 1 -- -b 8 -D
rec tcp_rr_demo -t TCP_RR -l 2 -D 0.5,1000
rec tcp_stream_demo -t TCP_STREAM -l 2 -D 0.5
rec tcp_rr_count -t TCP_RR -l -5000
rec tcp_rr_keyval -t TCP_RR -l 1 -- -k THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,RESULT_BRAND,CONFIDENCE_LEVEL,CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID,LOCAL_CPU_UTIL,REMOTE_CPU_UTIL,LOCAL_SD,REMOTE_SD,SD_UNITS,MIN_LATENCY,MAX_LATENCY,MEAN_LATENCY,STDDEV_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,TRANSACTION_RATE,REQUEST_SIZE,RESPONSE_SIZE,BURST_SIZE,PROTOCOL,DIRECTION
rec tcp_rr_csv -t TCP_RR -l 1 -- -o THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,RESULT_BRAND,CONFIDENCE_LEVEL,CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID,MIN_LATENCY,MAX_LATENCY,MEAN_LATENCY,STDDEV_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,TRANSACTION_RATE,REQUEST_SIZE,RESPONSE_SIZE,BURST_SIZE,PROTOCOL,DIRECTION
rec tcp_rr_human -t TCP_RR -l 1 -- -O THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,MIN_LATENCY,P50_LATENCY,P99_LATENCY,REQUEST_SIZE,RESPONSE_SIZE,PROTOCOL,DIRECTION
rec tcp_stream_keyval -t TCP_STREAM -l 1 -c -C -B b1 -- -k THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,RESULT_BRAND,LOCAL_CPU_UTIL,REMOTE_CPU_UTIL,LOCAL_SD,REMOTE_SD,SD_UNITS,LOCAL_SEND_SIZE,REMOTE_RECV_SIZE,LSS_SIZE_REQ,LSS_SIZE,LSS_SIZE_END,LSR_SIZE_REQ,LSR_SIZE,LSR_SIZE_END,RSS_SIZE_REQ,RSS_SIZE,RSS_SIZE_END,RSR_SIZE_REQ,RSR_SIZE,RSR_SIZE_END,PROTOCOL,DIRECTION,LOCAL_ADDR,REMOTE_ADDR,LOCAL_RELEASE,REMOTE_RELEASE,LOCAL_TRANSPORT_RETRANS,UUID,COMMAND_LINE
rec tcp_stream_csv_p0 -t TCP_STREAM -l 1 -P 0 -- -o THROUGHPUT,THROUGHPUT_UNITS,RESULT_BRAND
rec udp_stream_keyval -t UDP_STREAM -l 1 -- -m 1400 -k THROUGHPUT,THROUGHPUT_UNITS,LOCAL_SEND_SIZE,REMOTE_RECV_SIZE,ELAPSED_TIME
rec tcp_rr_conf_keyval -t TCP_RR -l 1 -i 3,3 -I 95,5 -- -k THROUGHPUT,CONFIDENCE_LEVEL,CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID
rec tcp_rr_keyval_default -t TCP_RR -l 1 -- -k
rec tcp_stream_csv_default -t TCP_STREAM -l 1 -- -o
rec tcp_rr_human_default -t TCP_RR -l 1 -- -O
rec tcp_rr_human_blocks -t TCP_RR -l 1 -- -O "throughput,elapsed_time;p50_latency,protocol"
rec tcp_rr_band -t TCP_RR -l 1 -f m -- -r 1000
rec tcp_rr_band_cpu -t TCP_RR -l 1 -f k -c -C -- -r 100,200
rec udp_rr_band_p0 -t UDP_RR -l 1 -f g -P 0 -B b7
rec tcp_rr_band_keyval -t TCP_RR -l 1 -f m -- -r 1000 -k throughput,throughput_units,transaction_rate
rec tcp_rr_terse -t TCP_RR -l 1 -v 0 -c -C -P 0 -B bb
rec tcp_stream_terse -t TCP_STREAM -l 1 -v 0 -B bb
rec udp_stream_terse -t UDP_STREAM -l 1 -v 0 -c -C -P 0 -B bb
rec tcp_cc_terse -t TCP_CC -l 1 -v 0 -c -C -P 0 -B bb
rec selectors -t TCP_RR -- -o '?'
rec version -V
rec help -h
rec test_help -t TCP_RR -- -h
rec err_unknown_test -t NO_SUCH_TEST
rec err_conf_level -I 120,1
rec err_bad_option -Q
rec err_bad_test_option -t TCP_RR -l 1 -- -Q
rec err_missing_arg -t
# -v 2: the verbose block and histogram dump (tcp_stream_hist is kept for
# reference: netscript refuses -v 2 for streams).
rec tcp_rr_hist -t TCP_RR -l 1 -v 2
rec tcp_crr_hist -t TCP_CRR -l 1 -v 2
rec udp_rr_hist -t UDP_RR -l 1 -v 2
rec tcp_cc_hist -t TCP_CC -l 1 -v 2
rec tcp_stream_hist -t TCP_STREAM -l 1 -v 2
rec tcp_rr_hist_conf -t TCP_RR -l 1 -v 2 -i 3,3
rec tcp_rr_hist_cpu -t TCP_RR -l 1 -v 2 -c -C
rec tcp_crr_hist_cpu -t TCP_CRR -l 1 -v 2 -c -C
rec udp_rr_hist_cpu -t UDP_RR -l 1 -v 2 -c -C
rec tcp_rr_hist_p0 -t TCP_RR -l 1 -v 2 -P 0
rec tcp_rr_hist_keyval -t TCP_RR -l 1 -v 2 -- -k THROUGHPUT,P50_LATENCY
rec udp_rr_hist_keyval -t UDP_RR -l 1 -v 2 -- -k THROUGHPUT,P50_LATENCY
rec tcp_rr_hist_csv -t TCP_RR -l 1 -v 2 -- -o THROUGHPUT,P50_LATENCY
rec tcp_rr_hist_human -t TCP_RR -l 1 -v 2 -- -O THROUGHPUT,P50_LATENCY
rec tcp_rr_hist_band -t TCP_RR -l 1 -v 2 -f k -- -r 100,200
rec tcp_rr_hist_burst -t TCP_RR -l 1 -v 2 -- -b 4
