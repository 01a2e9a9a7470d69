package fleet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/fleet"
	"netscript/internal/kubetest"
)

// The size of the simulated fleet. `make test` runs a small one; the
// figures of docs/kubernetes.md come from larger ones:
//
//	go test -count=1 -run TestSimulatedMesh -v ./fleet -sim.agents=100 -sim.perhost=50 -sim.perround=10
//	go test -count=1 -run TestSimulatedMesh -v ./fleet -sim.agents=1000 -sim.perhost=250 -sim.sample=2 -sim.perround=20
var (
	simAgents       = flag.Int("sim.agents", 8, "simulated agents")
	simPerHost      = flag.Int("sim.perhost", 4, "agents per host namespace")
	simSample       = flag.Int("sim.sample", 0, "servers per agent (0: every pair)")
	simPerRound     = flag.Int("sim.perround", 0, "tests per round at most (0: no cap)")
	simTransactions = flag.Int("sim.transactions", 20, "transactions of each test")
)

// TestSimulatedMesh: a controller drives a mesh over simulated agents
// (daemons in namespaces), round by round, each round's tests started on
// one clock by parallel() with client=; every pair of the plan is
// measured, every result is a JSON line. It logs what the controller
// cost (its peak resident memory) and what the results weigh, the
// figures of docs/kubernetes.md's scale section.
func TestSimulatedMesh(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "netscript")
	if out, err := exec.Command("go", "build", "-o", bin, "netscript/cmd/netscript").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	start := time.Now()
	sim := kubetest.SimFleet(t, bin, *simAgents, *simPerHost)
	t.Logf("%d agents on %d hosts ready in %v", len(sim.Agents), len(sim.Hosts), time.Since(start).Round(time.Millisecond))
	var agents []fleet.Agent
	for _, a := range sim.Agents {
		agents = append(agents, fleet.Agent{Name: a.Address, Address: netip.MustParseAddr(a.Address),
			Node: a.Address, Zone: fmt.Sprintf("zone-%d", a.Host%3), Ready: true})
	}
	plan, err := fleet.NewPlan(agents, fleet.Options{Sample: *simSample, PerRound: *simPerRound, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	widest := 0
	var rounds []string
	for _, r := range plan.Rounds {
		widest = max(widest, len(r))
		var ps []string
		for _, p := range r {
			ps = append(ps, fmt.Sprintf("(%q,%q)", agents[p.Client].Address, agents[p.Server].Address))
		}
		rounds = append(rounds, "["+strings.Join(ps, ",")+"]")
	}
	script := fmt.Sprintf(`rounds = [%s]
n = 0
for rnd in rounds:
    rs = parallel([lambda c=c, s=s: tcp_rr(host=s, client=c, transactions=%d, brand=c + ">" + s) for c, s in rnd])
    for r in rs:
        if r.transactions != %d:
            fail("%%s: %%d transactions" %% (r.brand, r.transactions))
    n += len(rs)
print(n)
`, strings.Join(rounds, ",\n"), *simTransactions, *simTransactions)
	dir := t.TempDir()
	file := filepath.Join(dir, "mesh.star")
	lines, record := filepath.Join(dir, "mesh.jsonl"), filepath.Join(dir, "mesh.json")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := sim.Ctl.Command(ctx, bin, "--token-file", sim.TokenFile, "--allow-net", "--json-lines", lines, "--record", record, file)
	start = time.Now()
	out, err := childproc.CombinedOutput(cmd)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("the controller: %v\n%s", err, tailOf(out))
	}
	if got := strings.TrimSpace(string(out)); got != fmt.Sprint(plan.Pairs) {
		t.Fatalf("the controller printed %q, want %d tests", tailOf(out), plan.Pairs)
	}
	n, size := countLines(t, lines)
	if n != plan.Pairs {
		t.Errorf("%d JSON lines for %d tests", n, plan.Pairs)
	}
	rec, _ := os.Stat(record)
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	t.Logf("%d agents, %d tests in %d rounds (at most %d at once) in %v: controller peak RSS %d MiB; "+
		"JSON lines %d bytes (%d a test), record %d bytes (%d a test)",
		len(agents), plan.Pairs, len(plan.Rounds), widest, took.Round(time.Millisecond), rss/1024,
		size, size/int64(max(n, 1)), rec.Size(), rec.Size()/int64(max(plan.Pairs, 1)))
}

// countLines counts the JSON lines of a file, checking each decodes.
func countLines(t *testing.T, path string) (int, int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
	}
	return n, st.Size()
}

func tailOf(b []byte) string {
	if len(b) > 4096 {
		return "..." + string(b[len(b)-4096:])
	}
	return string(b)
}
