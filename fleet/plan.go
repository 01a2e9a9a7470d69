package fleet

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Options chooses the pairs of a mesh and how many tests may share a node.
type Options struct {
	// Sample is how many servers each agent tests against, spread over the
	// groups (the nearest first: a partner on its own node, then its zone,
	// then others, in turn); 0 tests every ordered pair, N×(N-1) tests.
	Sample int
	// PerNode is how many tests may run at once on one node, counting
	// either end (1 if 0): more, and tests on a node measure each other.
	// An agent takes part in one test at a time whatever PerNode says.
	PerNode int
	// PerRound caps the tests of one round, all nodes together (0: no
	// cap): what the controller and its network can set up at once.
	PerRound int
	// Seed makes the sample reproducible: the same agents, options and
	// seed give the same plan.
	Seed uint64
	// Groups keeps only pairs of these groups (Group's names); empty keeps
	// every pair.
	Groups []string
}

// Pair is one test of a mesh: Client runs the client side toward Server
// (both indices into Plan.Agents).
type Pair struct {
	Client, Server int32
	group          uint8
}

// Group is the pair's group, as [Group] says.
func (p Pair) Group() string { return Groups()[p.group] }

// Plan is a mesh's tests in rounds: the tests of a round run at once,
// rounds one after another.
type Plan struct {
	Agents []Agent
	Rounds [][]Pair
	Pairs  int // tests in all rounds
}

// maxAgents bounds a plan: pairs are held as two int32 indices, and a
// full mesh of more agents than this is more pairs than anyone can run.
const maxAgents = 1 << 16

// NewPlan chooses the pairs among agents that opt asks for and schedules
// them in rounds. Agents are tested in the order given; duplicate
// addresses and ports are an error (one daemon found twice).
func NewPlan(agents []Agent, opt Options) (*Plan, error) {
	if opt.Sample < 0 {
		return nil, fmt.Errorf("fleet: sample %d: want 0 (every pair) or how many servers each agent tests against", opt.Sample)
	}
	if opt.PerNode < 0 {
		return nil, fmt.Errorf("fleet: per_node %d: want at least 1 test at once per node", opt.PerNode)
	}
	if opt.PerNode == 0 {
		opt.PerNode = 1
	}
	if opt.PerRound < 0 {
		return nil, fmt.Errorf("fleet: per_round %d: want 0 (no cap) or the most tests at once", opt.PerRound)
	}
	if len(agents) > maxAgents {
		return nil, fmt.Errorf("fleet: %d agents: a plan takes at most %d", len(agents), maxAgents)
	}
	keep := make([]bool, len(Groups()))
	if len(opt.Groups) == 0 {
		for i := range keep {
			keep[i] = true
		}
	}
	for _, g := range opt.Groups {
		i := slices.Index(Groups(), g)
		if i < 0 {
			return nil, fmt.Errorf("fleet: group %q: want one of %v", g, Groups())
		}
		keep[i] = true
	}
	seen := make(map[string]int, len(agents))
	for i, a := range agents {
		if !a.Address.IsValid() {
			return nil, fmt.Errorf("fleet: agent %d (%s) has no address", i, a.Name)
		}
		if j, dup := seen[a.agentKey()]; dup {
			return nil, fmt.Errorf("fleet: agents %d (%s) and %d (%s) are one daemon at %s", j, agents[j], i, a, a.Control())
		}
		seen[a.agentKey()] = i
	}
	var pairs []Pair
	if opt.Sample == 0 {
		pairs = everyPair(agents, keep)
	} else {
		pairs = samplePairs(agents, keep, opt.Sample, opt.Seed)
	}
	return &Plan{Agents: agents, Rounds: schedule(agents, pairs, opt.PerNode, opt.PerRound), Pairs: len(pairs)}, nil
}

// groupIndex is Group's answer as an index into Groups.
func groupIndex(c, s Agent) uint8 {
	return uint8(slices.Index(Groups(), Group(c, s)))
}

// everyPair lists every ordered pair of the groups kept in the order of a
// round-robin tournament (the circle method): each block of n/2 pairs
// touches every agent once, its pairs one way, then the next block the
// other way, so the scheduler packs n/2 tests in each round when every
// agent has a node of its own.
func everyPair(agents []Agent, keep []bool) []Pair {
	n := len(agents)
	if n < 2 {
		return nil
	}
	m := n + n%2 // an odd fleet gets a bye: index n, never tested
	pairs := make([]Pair, 0, n*(n-1))
	add := func(a, b int) {
		if a >= n || b >= n {
			return
		}
		if g := groupIndex(agents[a], agents[b]); keep[g] {
			pairs = append(pairs, Pair{Client: int32(a), Server: int32(b), group: g})
		}
	}
	var block [][2]int
	for r := 0; r < m-1; r++ {
		block = block[:0]
		block = append(block, [2]int{m - 1, r})
		for k := 1; k < m/2; k++ {
			block = append(block, [2]int{(r + k) % (m - 1), (r - k + m - 1) % (m - 1)})
		}
		for _, p := range block {
			add(p[0], p[1])
		}
		for _, p := range block {
			add(p[1], p[0])
		}
	}
	return pairs
}

// samplePairs gives each agent up to k servers, taken in turn from its
// groups, nearest first (same node, same zone, across zones, ...), each
// group's agents in an order drawn from seed. The pairs come slot by slot
// (every agent's first server, then every agent's second, ...), so each
// round holds tests of many clients.
func samplePairs(agents []Agent, keep []bool, k int, seed uint64) []Pair {
	n := len(agents)
	picks := make([][]Pair, n) // each client's servers, in the order taken
	buckets := make([][]int32, len(Groups()))
	for c := range agents {
		for g := range buckets {
			buckets[g] = buckets[g][:0]
		}
		for s := range agents {
			if s == c {
				continue
			}
			if g := groupIndex(agents[c], agents[s]); keep[g] {
				buckets[g] = append(buckets[g], int32(s))
			}
		}
		rng := rand.New(rand.NewPCG(seed, uint64(c)))
		for _, b := range buckets {
			rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		}
		next := make([]int, len(buckets))
		for len(picks[c]) < k {
			took := false
			for g, b := range buckets {
				if len(picks[c]) < k && next[g] < len(b) {
					picks[c] = append(picks[c], Pair{Client: int32(c), Server: b[next[g]], group: uint8(g)})
					next[g]++
					took = true
				}
			}
			if !took {
				break
			}
		}
	}
	var pairs []Pair
	for slot := 0; slot < k; slot++ {
		for c := range picks {
			if slot < len(picks[c]) {
				pairs = append(pairs, picks[c][slot])
			}
		}
	}
	return pairs
}
