package proto

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"netscript/engine/auth"
)

var writeCorpus = flag.Bool("write-corpus", false, "write the seed corpora of testdata/fuzz from the tables of corpus_test.go")

// corpusFile is one seed in the "go test fuzz v1" format.
func corpusFile(args ...any) []byte {
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case byte:
			fmt.Fprintf(&b, "byte(%q)\n", v)
		default:
			panic(fmt.Sprintf("corpusFile: %T", a))
		}
	}
	return b.Bytes()
}

// checkCorpus makes sure testdata/fuzz/<target> holds a file for every
// seed (with -write-corpus: writes them). Only that the file is there: a
// message that grows a field need not rewrite the corpus.
func checkCorpus(t *testing.T, target string, seeds map[string][]any) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	for name, args := range seeds {
		want := corpusFile(args...)
		path := filepath.Join(dir, name)
		if *writeCorpus {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("seed %s is missing (go test -run TestCorpus -write-corpus): %v", path, err)
		}
	}
}

func frameOf(t Type, v any) []byte {
	b, err := AppendFrame(nil, t, v)
	if err != nil {
		panic(err)
	}
	return b
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Fixed nonces and proofs keep the seeds the same from run to run.
var (
	nonceA = bytes.Repeat([]byte{0xa5}, 32)
	nonceB = bytes.Repeat([]byte{0x5a}, 32)
)

// TestCorpus keeps the committed seed corpora of this package's fuzz
// targets in step with these tables.
func TestCorpus(t *testing.T) {
	huge := binary.BigEndian.AppendUint32(nil, 0xFFFFFFFF)
	setup := frameOf(TypeSetup, Setup{Test: "TCP_RR", Request: 1, Response: 1, DurationNs: 1e9})
	checkCorpus(t, "FuzzReadFrame", map[string][]any{
		"setup":             {setup},
		"ready":             {frameOf(TypeReady, Ready{DataPort: 40000, Buffers: Buffers{Send: 16384, Recv: 131072}, TCPFastOpen: 1})},
		"start":             {frameOf(TypeStart, Start{})},
		"started":           {frameOf(TypeStarted, Started{})},
		"stop":              {frameOf(TypeStop, Stop{})},
		"results":           {frameOf(TypeResults, Results{Transactions: 9, Errors: map[string]uint64{"ECONNRESET": 1}, Peers: []Peer{{"::1", 2}}})},
		"error":             {frameOf(TypeError, Error{Message: "no"})},
		"hello":             {rawFrame(TypeHello, append([]byte{modeToken}, nonceA...))},
		"length_4GiB":       {append(huge, byte(TypeSetup))},
		"zero_length":       {[]byte{0, 0, 0, 0, 2}},
		"unknown_type":      {[]byte{0, 0, 0, 1, 200}},
		"truncated_header":  {[]byte{0, 0, 1}},
		"truncated_payload": {setup[:12]},
		"two_frames":        {cat(setup, frameOf(TypeStop, Stop{}))},
	})
	checkCorpus(t, "FuzzPreamble", map[string][]any{
		"current":     {AppendPreamble(nil, Version)},
		"version_2":   {AppendPreamble(nil, 2)},
		"version_max": {[]byte("NETSCRPT\xff\xff")},
		"http":        {[]byte("GET / HTTP")},
		"short":       {[]byte("NETSC")},
		"long":        {append(AppendPreamble(nil, Version), 0)},
	})
	dec := func(t Type, p string) []any { return []any{byte(t), []byte(p)} }
	checkCorpus(t, "FuzzDecode", map[string][]any{
		"setup":             dec(TypeSetup, `{"test":"TCP_CRR","request":1,"response":1,"fastopen":true,"cpu":0,"duration_ns":1000000000}`),
		"setup_streams":     dec(TypeSetup, `{"test":"TCP_MAERTS","send_size":16384,"bytes":1048576,"rate":1000,"recv_buffer":1}`),
		"ready":             dec(TypeReady, `{"data_port":40000,"buffers":{"send":1,"recv":2},"server":{"version":"1","kernel":"6"},"tcp_fastopen":-1}`),
		"start":             dec(TypeStart, `{}`),
		"started":           dec(TypeStarted, `{}`),
		"stop":              dec(TypeStop, `{}`),
		"results":           dec(TypeResults, `{"transactions":1,"errors":{"EPIPE":2},"peers":[{"addr":"::1","count":2}],"cpu":{"util":1.5,"ncpu":2},"affinity":[0,1]}`),
		"error":             dec(TypeError, `{"message":"server busy"}`),
		"trailing":          dec(TypeStop, `{} {}`),
		"wrong_type":        dec(TypeSetup, `{"request":"five"}`),
		"huge_number":       dec(TypeSetup, `{"request":1e400}`),
		"negative_uint":     dec(TypeResults, `{"transactions":-1}`),
		"array":             dec(TypeSetup, `[1,2,3]`),
		"nested":            dec(TypeResults, `{"errors":{"a":{"b":[[[[]]]]}}}`),
		"unknown_message":   dec(Type(99), `{"x":1}`),
		"run_client":        dec(TypeRunClient, `{"spec":{"Workload":1,"Host":"127.0.0.1","Duration":1000000000}}`),
		"client_ready":      dec(TypeClientReady, `{}`),
		"sync":              dec(TypeSync, `{"seq":3}`),
		"go":                dec(TypeGo, `{"delay_ns":5000000}`),
		"client_result":     dec(TypeClientResult, `{"result":{"test":"TCP_RR"},"hist":"AAEC","flow_hists":["AA=="],"error":""}`),
		"unknown_field":     dec(TypeSetup, `{"test":"TCP_RR","colour":"red"}`),
		"unknown_nested":    dec(TypeReady, `{"buffers":{"send":1,"huge":2}}`),
		"stray_bracket":     dec(TypeStop, `{}]`),
		"bad_family":        dec(TypeRunClient, `{"spec":{"Workload":1,"Family":3}}`),
		"negative_interval": dec(TypeRunClient, `{"spec":{"Workload":1,"Interval":-1}}`),
	})
	rc := func(p string) []any { return []any{[]byte(p)} }
	checkCorpus(t, "FuzzTestSpec", map[string][]any{
		"minimal":           rc(`{"spec":{"Workload":1}}`),
		"every_field":       rc(`{"spec":{"Workload":2,"Host":"h","Port":1,"Duration":1,"Transactions":1,"Request":1,"Response":1,"Burst":1,"NoDelay":true,"Local":"l","LocalPort":1,"DataPort":1,"Family":2,"Brand":"b","Timeout":1,"ConnectTimeout":1,"SendSize":1,"RecvSize":1,"Bytes":1,"FastOpen":true,"CPUUtil":true,"SendBuffer":1,"RecvBuffer":1,"RemoteSendBuffer":1,"RemoteRecvBuffer":1,"CPU":0,"RemoteCPU":1,"Interval":1,"Rate":0.5,"NoControl":true,"Flows":2,"Locals":["a","b"],"LocalPorts":[1,2],"DataPorts":[3,4],"LocalPortRange":{"Lo":1,"Hi":2},"Client":"c"}}`),
		"empty_lists":       rc(`{"spec":{"Workload":4,"Locals":[],"LocalPorts":[],"DataPorts":[]}}`),
		"unknown_workload":  rc(`{"spec":{"Workload":99}}`),
		"workload_0":        rc(`{"spec":{"Workload":0}}`),
		"family_3":          rc(`{"spec":{"Workload":1,"Family":3}}`),
		"negative_duration": rc(`{"spec":{"Workload":1,"Duration":-1}}`),
		"unknown_field":     rc(`{"spec":{"Workload":1,"Colour":1}}`),
		"workload_string":   rc(`{"spec":{"Workload":"TCP_RR"}}`),
		"spec_null":         rc(`{"spec":null}`),
		"lower_case_keys":   rc(`{"spec":{"workload":1,"family":1}}`),
	})
	hello := func(mode byte, tok auth.Token) []byte {
		hs, _ := handshakeState(auth.NewSecret(tok), mode, true)
		m, _, _, _ := hs.WriteMessage([]byte{mode}, nil)
		return rawFrame(TypeHello, m)
	}
	sealedShape := []byte{0, 0, 0, 20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	checkCorpus(t, "FuzzHandshakeServer", map[string][]any{
		"hello_token":       {hello(modeToken, fuzzToken)},
		"hello_token_setup": {cat(hello(modeToken, fuzzToken), setup)},
		"hello_token_shape": {cat(hello(modeToken, fuzzToken), sealedShape)},
		"hello_other_token": {hello(modeToken, auth.Token("correct horse battery stapler"))},
		"hello_open":        {hello(modeOpen, nil)},
		"hello_mode_9":      {rawFrame(TypeHello, append([]byte{9}, nonceA...))},
		"hello_empty":       {rawFrame(TypeHello, nil)},
		"hello_long":        {rawFrame(TypeHello, bytes.Repeat(nonceA, 3))},
		"error_first":       {frameOf(TypeError, Error{Message: "gave up"})},
		"setup_first":       {setup},
		"length_4GiB":       {append(huge, byte(TypeHello))},
		"nothing":           {[]byte{}},
	})
	checkCorpus(t, "FuzzHandshakeClient", map[string][]any{
		"welcome":         {rawFrame(TypeWelcome, append(nonceA, nonceB[:16]...))},
		"welcome_short":   {rawFrame(TypeWelcome, nonceA[:8])},
		"token_required":  {frameOf(TypeError, Error{Message: tokenRequired})},
		"server_open":     {frameOf(TypeError, Error{Message: serverWantsNone})},
		"refused":         {frameOf(TypeError, Error{Message: refusal})},
		"busy":            {frameOf(TypeError, Error{Message: "server busy"})},
		"ready_first":     {frameOf(TypeReady, Ready{DataPort: 1})},
		"welcome_sealed":  {cat(rawFrame(TypeWelcome, append(nonceA, nonceB[:16]...)), sealedShape)},
		"hello_reflected": {hello(modeToken, fuzzToken)},
	})
}

// rawFrame is a frame in clear with a binary payload (the handshake's).
func rawFrame(t Type, p []byte) []byte { return append(appendHeader(nil, t, len(p)), p...) }
