package fleet

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fleetOf makes n agents, perNode on each node, nodes spread over zones
// a and b of region r (node i in zone "ab"[i%2]).
func fleetOf(n, perNode int) []Agent {
	var as []Agent
	for i := range n {
		node := i / perNode
		as = append(as, Agent{
			Name:    fmt.Sprintf("agent-%d", i),
			Address: netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}),
			Node:    fmt.Sprintf("node-%d", node),
			Zone:    "zone-" + "ab"[node%2:node%2+1],
			Region:  "r",
			Network: PodNetwork,
		})
	}
	return as
}

func TestGroup(t *testing.T) {
	a := netip.MustParseAddr("198.18.0.1")
	for _, c := range []struct {
		name   string
		c, s   Agent
		expect string
	}{
		{"one node", Agent{Node: "n1", Zone: "z"}, Agent{Node: "n1", Zone: "z"}, SameNode},
		{"one zone", Agent{Node: "n1", Zone: "z"}, Agent{Node: "n2", Zone: "z"}, SameZone},
		{"two zones, one region", Agent{Node: "n1", Zone: "z1", Region: "r"}, Agent{Node: "n2", Zone: "z2", Region: "r"}, CrossZone},
		{"two zones, no regions", Agent{Node: "n1", Zone: "z1"}, Agent{Node: "n2", Zone: "z2"}, CrossZone},
		{"two regions", Agent{Node: "n1", Zone: "z1", Region: "r1"}, Agent{Node: "n2", Zone: "z2", Region: "r2"}, CrossRegion},
		{"nodes without zones", Agent{Node: "n1"}, Agent{Node: "n2", Zone: "z"}, CrossNode},
		{"found by DNS", Agent{Address: a}, Agent{Address: a.Next()}, Unknown},
	} {
		if got := Group(c.c, c.s); got != c.expect {
			t.Errorf("%s: %s, want %s", c.name, got, c.expect)
		}
	}
}

// checkRounds fails unless every round holds each agent at most once and
// each node at most perNode times, and returns every pair's client and
// server as "c>s".
func checkRounds(t *testing.T, p *Plan, perNode int) map[string]int {
	t.Helper()
	seen := map[string]int{}
	total := 0
	for r, round := range p.Rounds {
		agents, nodes := map[int32]bool{}, map[string]int{}
		for _, x := range round {
			if agents[x.Client] || agents[x.Server] {
				t.Fatalf("round %d: an agent of %d>%d has another test", r, x.Client, x.Server)
			}
			agents[x.Client], agents[x.Server] = true, true
			nodes[p.Agents[x.Client].Node]++
			if p.Agents[x.Server].Node != p.Agents[x.Client].Node {
				nodes[p.Agents[x.Server].Node]++
			}
			if x.Group() != Group(p.Agents[x.Client], p.Agents[x.Server]) {
				t.Errorf("pair %d>%d: group %s", x.Client, x.Server, x.Group())
			}
			seen[fmt.Sprintf("%d>%d", x.Client, x.Server)]++
			total++
		}
		for n, c := range nodes {
			if c > perNode {
				t.Fatalf("round %d: %d tests on %s, at most %d", r, c, n, perNode)
			}
		}
	}
	if total != p.Pairs {
		t.Errorf("%d pairs in rounds, Pairs says %d", total, p.Pairs)
	}
	return seen
}

// TestEveryPair: a full mesh holds every ordered pair once; with a node
// per agent it takes the fewest rounds there can be, 2(n-1) rounds of
// n/2 tests (n odd: 2n rounds of (n-1)/2).
func TestEveryPair(t *testing.T) {
	for _, n := range []int{2, 3, 8, 9, 50} {
		p, err := NewPlan(fleetOf(n, 1), Options{})
		if err != nil {
			t.Fatal(err)
		}
		seen := checkRounds(t, p, 1)
		if p.Pairs != n*(n-1) || len(seen) != n*(n-1) {
			t.Errorf("n=%d: %d pairs, %d distinct", n, p.Pairs, len(seen))
		}
		want := 2 * (n - 1)
		if n%2 == 1 {
			want = 2 * n
		}
		if len(p.Rounds) != want {
			t.Errorf("n=%d: %d rounds, want %d", n, len(p.Rounds), want)
		}
	}
}

// TestPerNode: two agents per node (pod and host network) never both test
// at once with per_node=1; with per_node=2 they may, and the plan is
// shorter.
func TestPerNode(t *testing.T) {
	as := fleetOf(12, 2)
	one, err := NewPlan(as, Options{PerNode: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkRounds(t, one, 1)
	two, err := NewPlan(as, Options{PerNode: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkRounds(t, two, 2)
	if len(two.Rounds) >= len(one.Rounds) {
		t.Errorf("per_node=2: %d rounds, per_node=1: %d", len(two.Rounds), len(one.Rounds))
	}
}

// TestPerRound: a cap on each round's tests lengthens the plan and holds.
func TestPerRound(t *testing.T) {
	p, err := NewPlan(fleetOf(20, 1), Options{PerRound: 3})
	if err != nil {
		t.Fatal(err)
	}
	checkRounds(t, p, 1)
	for i, r := range p.Rounds {
		if len(r) > 3 {
			t.Fatalf("round %d holds %d tests", i, len(r))
		}
	}
	if len(p.Rounds) < 380/3 {
		t.Errorf("%d rounds of at most 3 for 380 pairs", len(p.Rounds))
	}
}

// TestSample: each agent tests against k others, the nearest groups
// first, and the same seed gives the same plan.
func TestSample(t *testing.T) {
	as := fleetOf(40, 2) // 20 nodes, zones a and b
	p, err := NewPlan(as, Options{Sample: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	checkRounds(t, p, 1)
	if p.Pairs != 3*40 {
		t.Fatalf("%d pairs, want 120", p.Pairs)
	}
	groups := map[int32][]string{}
	for _, r := range p.Rounds {
		for _, x := range r {
			groups[x.Client] = append(groups[x.Client], x.Group())
		}
	}
	for c, gs := range groups {
		got := strings.Join(sorted(gs), ",")
		if got != "cross-zone,same-node,same-zone" {
			t.Errorf("agent %d tests %s", c, got)
		}
	}
	again, _ := NewPlan(as, Options{Sample: 3, Seed: 7})
	if !reflect.DeepEqual(p.Rounds, again.Rounds) {
		t.Error("the same seed gave another plan")
	}
	other, _ := NewPlan(as, Options{Sample: 3, Seed: 8})
	if reflect.DeepEqual(p.Rounds, other.Rounds) {
		t.Error("another seed gave the same plan")
	}
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// TestGroupsKept: a plan of one group holds only its pairs.
func TestGroupsKept(t *testing.T) {
	p, err := NewPlan(fleetOf(12, 2), Options{Groups: []string{SameNode}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Pairs != 12 { // each node's two agents, both ways
		t.Errorf("%d same-node pairs, want 12", p.Pairs)
	}
	checkRounds(t, p, 1)
}

func TestPlanRefuses(t *testing.T) {
	a := fleetOf(2, 1)
	for _, c := range []struct {
		agents []Agent
		opt    Options
		expect string
	}{
		{a, Options{Sample: -1}, "sample -1"},
		{a, Options{PerNode: -2}, "per_node -2"},
		{a, Options{PerRound: -1}, "per_round -1"},
		{a, Options{Groups: []string{"same-rack"}}, `group "same-rack": want one of`},
		{[]Agent{a[0], a[0]}, Options{}, "are one daemon at 198.18.0.0:12866"},
		{[]Agent{{Name: "x"}}, Options{}, "agent 0 (x) has no address"},
	} {
		_, err := NewPlan(c.agents, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.expect) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.expect)
		}
	}
}

func TestControl(t *testing.T) {
	for _, c := range []struct {
		a      Agent
		expect string
	}{
		{Agent{Address: netip.MustParseAddr("198.18.0.2")}, "198.18.0.2:12866"},
		{Agent{Address: netip.MustParseAddr("2001:2::2"), Port: 9000}, "[2001:2::2]:9000"},
	} {
		if got := c.a.Control(); got != c.expect {
			t.Errorf("%s, want %s", got, c.expect)
		}
	}
}

// BenchmarkPlan1000: the full mesh of 1,000 agents, 999,000 pairs.
func BenchmarkPlan1000(b *testing.B) {
	as := fleetOf(1000, 1)
	for b.Loop() {
		if _, err := NewPlan(as, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestProbe: an agent whose port accepts is up; one whose port is closed,
// one not Ready and one without an address are each down, with why.
func TestProbe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	up := netip.MustParseAddrPort(ln.Addr().String())
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := netip.MustParseAddrPort(closed.Addr().String())
	closed.Close()
	agents := []Agent{
		{Name: "up", Address: up.Addr(), Port: up.Port(), Ready: true},
		{Name: "down", Address: down.Addr(), Port: down.Port(), Ready: true},
		{Name: "unready", Address: up.Addr(), Port: up.Port()},
		{Name: "pending", Ready: true},
	}
	errs := Probe(context.Background(), agents, 5*time.Second)
	want := []string{"", "connection refused", "not Ready", "no address"}
	for i, e := range errs {
		if (e == nil) != (want[i] == "") || e != nil && !strings.Contains(e.Error(), want[i]) {
			t.Errorf("%s: %v, want %q", agents[i].Name, e, want[i])
		}
	}
}
