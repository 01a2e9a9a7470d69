package server

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"netscript/engine/proto"
)

var writeCorpus = flag.Bool("write-corpus", false, "write the seed corpora of testdata/fuzz from the tables of corpus_test.go")

// checkCorpus makes sure testdata/fuzz/<target> holds a file for every
// seed, in the "go test fuzz v1" format (with -write-corpus: writes them).
func checkCorpus(t *testing.T, target string, seeds map[string][]byte) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	for name, seed := range seeds {
		path := filepath.Join(dir, name)
		if *writeCorpus {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", seed), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("seed %s is missing (go test -run TestCorpus -write-corpus): %v", path, err)
		}
	}
}

// TestCorpus keeps the committed seed corpora of this package's fuzz
// targets in step with these tables.
func TestCorpus(t *testing.T) {
	checkCorpus(t, "FuzzSetup", map[string][]byte{
		"tcp_rr":             []byte(`{"test":"TCP_RR","request":1,"response":1,"duration_ns":10000000000}`),
		"tcp_stream":         []byte(`{"test":"TCP_STREAM","recv_size":65536,"cpu_util":true}`),
		"tcp_maerts":         []byte(`{"test":"TCP_MAERTS","send_size":16384,"bytes":1048576,"rate":1000}`),
		"udp_stream":         []byte(`{"test":"UDP_STREAM","recv_size":65507,"recv_buffer":1}`),
		"tcp_crr_fastopen":   []byte(`{"test":"TCP_CRR","request":1,"response":1,"fastopen":true,"cpu":0}`),
		"udp_rr_too_big":     []byte(`{"test":"UDP_RR","request":70000,"response":1}`),
		"negative_rate":      []byte(`{"test":"TCP_MAERTS","rate":-1}`),
		"negative_cpu":       []byte(`{"test":"TCP_RR","request":1,"response":1,"cpu":-3}`),
		"send_size_1e9":      []byte(`{"test":"UDP_STREAM","send_size":1e9}`),
		"over_max_message":   []byte(`{"test":"TCP_RR","request":33554432,"response":1}`),
		"over_max_buffer":    []byte(`{"test":"TCP_STREAM","send_buffer":536870912}`),
		"over_max_duration":  []byte(`{"test":"TCP_RR","request":1,"response":1,"duration_ns":7200000000000}`),
		"privileged_port":    []byte(`{"test":"UDP_RR","request":1,"response":1,"data_port":80}`),
		"port_out_of_range":  []byte(`{"test":"UDP_RR","request":1,"response":1,"data_port":70000}`),
		"negative_duration":  []byte(`{"test":"TCP_RR","request":1,"response":1,"duration_ns":-1}`),
		"unknown_test":       []byte(`{"test":"SCTP_RR"}`),
		"long_brand":         append(append([]byte(`{"test":"TCP_STREAM","brand":"`), bytes.Repeat([]byte("x"), 1100)...), `"}`...),
		"bytes_not_maerts":   []byte(`{"test":"TCP_STREAM","bytes":5}`),
		"fastopen_not_crr":   []byte(`{"test":"TCP_RR","request":1,"response":1,"fastopen":true}`),
		"burst_out_of_range": []byte(`{"test":"TCP_RR","request":1,"response":1,"burst":100000}`),
		"flows":              []byte(`{"test":"TCP_RR","request":1,"response":1,"flows":16}`),
		"flows_data_ports":   []byte(`{"test":"TCP_CRR","request":1,"response":1,"flows":3,"data_ports":[40000,40000,40001]}`),
		"over_max_flows":     []byte(`{"test":"TCP_RR","request":1,"response":1,"flows":5000}`),
		"privileged_ports":   []byte(`{"test":"UDP_RR","request":1,"response":1,"flows":2,"data_ports":[40000,22]}`),
		"more_ports":         []byte(`{"test":"TCP_RR","request":1,"response":1,"flows":1,"data_ports":[40000,40001]}`),
	})
	setup := proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, DurationNs: 1e6}
	checkCorpus(t, "FuzzSession", map[string][]byte{
		"tcp_rr":        conversation(setup, proto.TypeStart, proto.TypeStop),
		"tcp_crr":       conversation(proto.Setup{Test: "TCP_CRR", Request: 1, Response: 1}, proto.TypeStart, proto.TypeStop),
		"udp_rr":        conversation(proto.Setup{Test: "UDP_RR", Request: 1, Response: 1}, proto.TypeStart, proto.TypeStop),
		"udp_stream":    conversation(proto.Setup{Test: "UDP_STREAM"}, proto.TypeStart, proto.TypeStop),
		"tcp_maerts":    conversation(proto.Setup{Test: "TCP_MAERTS", Bytes: 10}, proto.TypeStart, proto.TypeStop),
		"setup_only":    conversation(setup),
		"no_start":      conversation(setup, proto.TypeStop),
		"start_twice":   conversation(setup, proto.TypeStart, proto.TypeStart),
		"bad_setup":     conversation(proto.Setup{Test: "TCP_RR", Request: -1, Response: 1}),
		"over_a_limit":  conversation(proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, DurationNs: 1 << 62}),
		"unknown_first": {0, 0, 0, 3, 99, '{', '}'},
		"error_first":   must(proto.AppendFrame(nil, proto.TypeError, proto.Error{Message: "x"})),
		"length_4GiB":   {0xff, 0xff, 0xff, 0xff, byte(proto.TypeSetup)},
		"in_clear":      []byte("GET / HTTP/1.1\r\n\r\n"),
		"truncated":     conversation(setup)[:12],
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
