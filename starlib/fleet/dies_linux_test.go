package fleet_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/internal/kubetest"
)

// TestMeshAgentDiesMidRound: an agent that answers the probe and dies as
// the mesh starts is a failed cell of each of its tests that had not
// ended, never a zero: scripts/kube_mesh.star keeps each failure as a
// result (keep_going=True), measures every other pair, shows the failed
// cells as x and lists their errors, and the run exits 3 as a run kept
// going past failed tests does. The agents are found through the DNS of
// their headless Service (dnsmasq), which needs no API server.
func TestMeshAgentDiesMidRound(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "netscript")
	if out, err := exec.Command("go", "build", "-o", bin, "netscript/cmd/netscript").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const n, victim = 6, 2
	sim := kubetest.SimFleet(t, bin, n, 2)
	const svcName = "netscript-agents.netscript.svc.cluster.local"
	var records []string
	name := func(i int) string { return fmt.Sprintf("agent-%d.%s", i, svcName) }
	for i, a := range sim.Agents {
		records = append(records, "--host-record="+name(i)+","+a.Address, fmt.Sprintf("--srv-host=_control._tcp.%s,%s,12866", svcName, name(i)))
	}
	dns := kubetest.DNS(t, sim.Ctl, "cluster.local", records...)

	dir := t.TempDir()
	lines := filepath.Join(dir, "mesh.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := sim.Ctl.Command(ctx, bin, "--token-file", sim.TokenFile, "--allow-net", "--json-lines", lines,
		"../../scripts/kube_mesh.star", "source=dns", "dns_server="+dns, "duration=0.5")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := childproc.Start(cmd); err != nil {
		t.Fatal(err)
	}
	// The plan's line comes after the probe: every agent answered it. The
	// victim is killed there, before its first test can have ended.
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	killed := false
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if !killed && strings.Contains(sc.Text(), "agents up, 0 down") {
			if err := syscall.Kill(sim.Agents[victim].Proc.Pid(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-sim.Agents[victim].Proc.Done()
			killed = true
		}
	}
	io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	t.Logf("the mesh printed:\n%s\nstderr:\n%s", out.String(), stderr.String())
	if !killed {
		t.Fatal("the mesh never printed its plan with every agent up")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("the mesh ended with %v, want exit status 3 (tests failed past keep_going)", err)
	}

	// Each ordered pair once; those without the victim measured; at least
	// one of the victim's failed, none of them as a zero.
	type line struct {
		Kind, Brand, Error string
		Result             *struct{ Transactions int64 }
	}
	f, err := os.Open(lines)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]int{}
	failed := 0
	ls := bufio.NewScanner(f)
	ls.Buffer(nil, 16<<20)
	for ls.Scan() {
		var l line
		if err := json.Unmarshal(ls.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Kind != "result" {
			continue
		}
		seen[l.Brand]++
		withVictim := strings.Contains(l.Brand, name(victim))
		switch {
		case l.Error != "":
			failed++
			if !withVictim {
				t.Errorf("%s failed (%s), and its agents were both alive", l.Brand, l.Error)
			}
		case l.Result == nil || l.Result.Transactions <= 0:
			t.Errorf("%s: no error and no transactions", l.Brand)
		}
	}
	for i := range n {
		for j := range n {
			if b := fmt.Sprintf("%s>%s unknown", name(i), name(j)); i != j && seen[b] != 1 {
				t.Errorf("%s: %d results, want 1", b, seen[b])
			}
		}
	}
	if failed == 0 || failed > 2*(n-1) {
		t.Errorf("%d failed tests, want 1 to %d (the victim's)", failed, 2*(n-1))
	}
	text := out.String()
	if got := strings.Count(matrixOf(text), " x"); got != failed {
		t.Errorf("%d x cells in the matrix, want the %d failed tests", got, failed)
	}
	if !strings.Contains(text, fmt.Sprintf("%d test(s) failed:", failed)) {
		t.Errorf("the printout does not list the %d failed tests", failed)
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("%d test", failed)) {
		t.Errorf("stderr does not count the %d failed tests:\n%s", failed, stderr.String())
	}
}
