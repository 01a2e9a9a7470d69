package fleet

// schedule packs pairs, in the order given, into rounds: each pair goes to
// the first round in which neither of its agents has a test yet and
// neither of its nodes has perNode tests (a test on one node counts once
// there), and which holds fewer than perRound tests (0: no cap). Later rounds only ever follow earlier ones, so a pair never
// waits for a round it could have joined.
func schedule(agents []Agent, pairs []Pair, perNode, perRound int) [][]Pair {
	ids := make(map[string]int)
	var capacity []uint16
	id := func(key string, c int) int {
		i, ok := ids[key]
		if !ok {
			i = len(capacity)
			ids[key] = i
			capacity = append(capacity, uint16(min(c, 1<<16-1)))
		}
		return i
	}
	agentRes := make([]int, len(agents))
	nodeRes := make([]int, len(agents))
	for i, a := range agents {
		agentRes[i] = id(a.agentKey(), 1)
		nodeRes[i] = id(a.nodeKey(), perNode)
	}
	everything := -1 // the round itself, when perRound caps it
	if perRound > 0 {
		everything = id("round", perRound)
	}
	var rounds [][]Pair
	var used [][]uint16                    // used[r][res]: tests of round r holding res
	nextFree := make([]int, len(capacity)) // the first round where res is not full
	for _, p := range pairs {
		all := [5]int{agentRes[p.Client], agentRes[p.Server], nodeRes[p.Client], nodeRes[p.Server], everything}
		res := all[:4]
		if all[3] == all[2] {
			res = all[:3] // a test on one node counts once there
		}
		if everything >= 0 {
			res = append(res, everything)
		}
		r := 0
		for _, x := range res {
			r = max(r, nextFree[x])
		}
		for ; ; r++ {
			if r == len(rounds) {
				rounds = append(rounds, nil)
				used = append(used, make([]uint16, len(capacity)))
			}
			fits := true
			for _, x := range res {
				fits = fits && used[r][x] < capacity[x]
			}
			if fits {
				break
			}
		}
		rounds[r] = append(rounds[r], p)
		for _, x := range res {
			used[r][x]++
			for nextFree[x] < len(rounds) && used[nextFree[x]][x] >= capacity[x] {
				nextFree[x]++
			}
		}
	}
	return rounds
}
