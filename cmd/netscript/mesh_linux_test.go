package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/engine/netns"
)

// These tests build hosts as network namespaces joined by veth pairs, one
// `netscript serve` per host, addresses in 198.18.0.0/15 only; engine/netns
// removes every namespace at cleanup, also when a test fails.

// flowJSON and resultJSON are the fields of result.to_dict() these tests read.
type flowJSON struct {
	LocalAddress string  `json:"local_address"`
	Transactions uint64  `json:"transactions"`
	Connects     uint64  `json:"connects"`
	First        float64 `json:"first"`
}

type resultJSON struct {
	Test         string            `json:"test"`
	Transactions uint64            `json:"transactions"`
	Discarded    uint64            `json:"discarded"`
	Start        float64           `json:"start"`
	Elapsed      float64           `json:"elapsed"`
	StartSkew    float64           `json:"start_skew"`
	LocalAddress string            `json:"local_address"`
	Errors       map[string]uint64 `json:"errors"`
	Notes        []string          `json:"notes"`
	Flows        []flowJSON        `json:"flows"`
	Config       struct {
		Client string `json:"client"`
		Flows  int    `json:"flows"`
	} `json:"config"`
	Remote struct {
		Transactions uint64   `json:"transactions"`
		Accepts      uint64   `json:"accepts"`
		Peers        []string `json:"peers"`
	} `json:"remote"`
}

// decodeResults reads the JSON list a script printed.
func decodeResults(t *testing.T, out string) []resultJSON {
	t.Helper()
	var rs []resultJSON
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return rs
}

// TestMeshInNamespaces: one script, in a fourth namespace, has daemon A run
// a test to B, B to C and C to A, in parallel. Each daemon runs the client
// side on the script's behalf and sends its result back with the server's
// figures; the three tests start together (the script timed the round
// trip to each daemon and told each when to go): on the machine's one
// clock each began before every other one ended. (How closely the starts
// agree, a few ms on an idle machine, is up to how fast each daemon is
// woken.)
func TestMeshInNamespaces(t *testing.T) {
	s := netns.New(t, "mesh-s")
	hosts := []*netns.NS{netns.New(t, "mesh-a"), netns.New(t, "mesh-b"), netns.New(t, "mesh-c")}
	// The script reaches every daemon: 198.18.1.x, 198.18.2.x, 198.18.3.x.
	ctrl := make([]string, 3)
	for i, h := range hosts {
		netns.Link(t, s, h, fmt.Sprintf("198.18.%d.1/24", i+1), fmt.Sprintf("198.18.%d.2/24", i+1))
		ctrl[i] = fmt.Sprintf("198.18.%d.2", i+1)
	}
	// The mesh: host i reaches host i+1 on 198.18.1(i)(i+1).x.
	data := make([]string, 3) // the address of host i+1 that host i tests against
	from := make([]string, 3) // host i's address on that link
	for i := range hosts {
		j := (i + 1) % 3
		net := fmt.Sprintf("198.18.%d%d", 1+i, 1+j)
		netns.Link(t, hosts[i], hosts[j], net+".1/24", net+".2/24")
		from[i], data[i] = net+".1", net+".2"
	}
	for _, h := range hosts {
		serveIn(t, h, "0.0.0.0:12866", "--allow-client") // each runs a client side for the script
	}
	var branches []string
	for i := range hosts {
		branches = append(branches, fmt.Sprintf("lambda: tcp_rr(client=%q, host=%q, duration=1, brand=%q)", ctrl[i], data[i], "ABC"[i:i+1]))
	}
	out, _ := clientIn(t, s, "rs = parallel(["+strings.Join(branches, ", ")+"])\nprint(json.encode([r.to_dict() for r in rs]))")
	rs := decodeResults(t, out)
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	for i, r := range rs {
		if r.Transactions == 0 || r.Remote.Transactions != r.Transactions+r.Discarded {
			t.Errorf("test %d: client %d + %d, server %d", i, r.Transactions, r.Discarded, r.Remote.Transactions)
		}
		if r.Config.Client != ctrl[i]+":12866" || r.LocalAddress != from[i] {
			t.Errorf("test %d: run by %q from %s, want %s from %s", i, r.Config.Client, r.LocalAddress, ctrl[i], from[i])
		}
		if len(r.Remote.Peers) != 1 || r.Remote.Peers[0] != from[i] {
			t.Errorf("test %d: the server saw %v, want %s", i, r.Remote.Peers, from[i])
		}
	}
	// One clock (the namespaces share the machine's): the tests ran at
	// one time.
	lo, hi := rs[0].Start, rs[0].Start
	for i, r := range rs {
		lo, hi = min(lo, r.Start), max(hi, r.Start)
		for j, o := range rs {
			if r.Start >= o.Start+o.Elapsed {
				t.Errorf("test %d started %v after test %d ended", i, time.Duration((r.Start-o.Start-o.Elapsed)*1e9), j)
			}
		}
	}
	t.Logf("the three daemons started within %v", time.Duration((hi-lo)*1e9))
}

// TestManySourcesInNamespaces: the seed experiment. Sixteen addresses on
// the client's host, one tcp_crr of sixteen flows each bound to its own
// address (-L 192.168.1.$i) against the server's fixed data port
// (-P ,12345), request 128 and response 4096; the server saw every one of
// the sixteen sources. Each flow runs 20 transactions (a count, where the
// seed ran for a time), so every flow must connect however a loaded
// machine schedules them.
func TestManySourcesInNamespaces(t *testing.T) {
	cli, srv := netns.New(t, "src-cli"), netns.New(t, "src-srv")
	v := netns.Link(t, cli, srv, "198.18.5.1/24", "198.18.5.100/24")
	var srcs []string
	for i := 1; i <= 16; i++ {
		if i > 1 {
			cli.AddAddr(t, v.DevA, fmt.Sprintf("198.18.5.%d/24", i))
		}
		srcs = append(srcs, fmt.Sprintf("198.18.5.%d", i))
	}
	serveIn(t, srv, "198.18.5.100:12866")
	list, _ := json.Marshal(srcs)
	out, _ := clientIn(t, cli, fmt.Sprintf(`r = tcp_crr(host="198.18.5.100", data_port=12345, request=128, response=4096,
    transactions=20, flows=16, local=%s)
print(json.encode([r.to_dict()]))`, list))
	r := decodeResults(t, out)[0]
	peers := append([]string(nil), r.Remote.Peers...)
	sort.Strings(peers)
	want := append([]string(nil), srcs...)
	sort.Strings(want)
	if strings.Join(peers, " ") != strings.Join(want, " ") {
		t.Errorf("the server saw %v, want the sixteen sources", r.Remote.Peers)
	}
	var sum uint64
	for i, f := range r.Flows {
		if f.LocalAddress != srcs[i] || f.Transactions != 20 {
			t.Errorf("flow %d: from %s, %d transactions", i, f.LocalAddress, f.Transactions)
		}
		sum += f.Connects
	}
	if r.Config.Flows != 16 || len(r.Flows) != 16 || r.Remote.Accepts < sum || r.Remote.Accepts > sum+16 {
		t.Errorf("%d flows; the server accepted %d, the flows connected %d", len(r.Flows), r.Remote.Accepts, sum)
	}
	t.Logf("16 sources: %d connections, start skew %.2f ms", r.Transactions, r.StartSkew*1e3)
}

// TestPortExhaustionInNamespaces: sixteen tcp_crr flows from one address
// with only eight local ports to share (net.ipv4.ip_local_port_range in the
// client's namespace) keep running; every connect that finds no free port
// fails with EADDRNOTAVAIL, is counted and retried, and the count is the
// number of connect(2) calls that failed so, as strace saw them.
func TestPortExhaustionInNamespaces(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("needs strace, to witness the failed connects")
	}
	cli, srv := netns.New(t, "port-cli"), netns.New(t, "port-srv")
	netns.Link(t, cli, srv, "198.18.6.1/24", "198.18.6.2/24")
	cli.Sysctl(t, "net.ipv4.ip_local_port_range", "40000 40007")
	serveIn(t, srv, "198.18.6.2:12866")
	trace := filepath.Join(t.TempDir(), "connect.trace")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := cli.Command(ctx, strace, "-f", "-qq", "-e", "trace=connect", "-o", trace, bin, "-c",
		`r = tcp_crr(host="198.18.6.2", duration=1, flows=16)
print(json.encode([r.to_dict()]))`)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := childproc.Run(cmd); err != nil {
		t.Fatalf("%v\n%s\n%s", err, o.String(), e.String())
	}
	r := decodeResults(t, o.String())[0]
	tr, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	failed := uint64(strings.Count(string(tr), "= -1 EADDRNOTAVAIL"))
	t.Logf("%d transactions, errors %v, strace saw %d connects fail with EADDRNOTAVAIL", r.Transactions, r.Errors, failed)
	if r.Transactions == 0 || r.Errors["EADDRNOTAVAIL"] == 0 {
		t.Fatalf("want transactions and counted EADDRNOTAVAIL, got %d and %v", r.Transactions, r.Errors)
	}
	if r.Errors["EADDRNOTAVAIL"] != failed {
		t.Errorf("result.errors has %d EADDRNOTAVAIL, strace saw %d", r.Errors["EADDRNOTAVAIL"], failed)
	}
	note := strings.Join(r.Notes, " ")
	if !strings.Contains(note, "for want of a free source port") || !strings.Contains(note, "ip_local_port_range") {
		t.Errorf("notes %q lack the explanation", r.Notes)
	}
	var sum uint64
	for _, f := range r.Flows {
		sum += f.Connects
	}
	if r.Remote.Accepts < sum || r.Remote.Accepts > sum+16 {
		t.Errorf("the server accepted %d connections, the flows made %d", r.Remote.Accepts, sum)
	}
}
