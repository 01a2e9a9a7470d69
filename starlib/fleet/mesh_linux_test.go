package fleet_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"netscript/engine/childproc"
	"netscript/internal/kubetest"
)

// meshAgents are the agents of TestKubeMesh: on each of three nodes one
// pod on the pod network and one on the node's (hostNetwork), nodes 0 and
// 1 in zone za, node 2 in zone zb. The Sim gives agent i the address
// 198.18.(i/2+1).(i%2+2).
var meshZones = []string{"za", "za", "zb"}

// TestKubeMesh is issue 33 end to end: Node and Pod objects made through
// a real kube-apiserver, a real `netscript serve` at each pod's IP (in
// network namespaces), and scripts/kube_mesh.star run as a user would,
// finding the agents through the API with a kubeconfig. Every ordered
// pair of the agents that answer is measured once, each result's brand
// names its pair and group, the groups follow the nodes' zones, the agent
// that is down is a failed cell in the matrix, and the heat map is drawn.
func TestKubeMesh(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "netscript")
	if out, err := exec.Command("go", "build", "-o", bin, "netscript/cmd/netscript").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sim := kubetest.SimFleet(t, bin, 2*len(meshZones), 2)
	c := kubetest.Start(t, sim.Ctl)
	cs := c.Clientset(t)
	kubetest.Namespace(t, cs, "netscript")
	labels := map[string]string{"app.kubernetes.io/name": "netscript-agent"}
	network := map[string]string{}
	zone := map[string]string{}
	node := map[string]string{}
	for n, z := range meshZones {
		name := fmt.Sprintf("node-%d", n)
		kubetest.Node(t, cs, name, sim.Agents[2*n+1].Address, map[string]string{
			"topology.kubernetes.io/zone": z, "topology.kubernetes.io/region": "r1"})
		for k, net := range []string{"pod", "host"} {
			a := sim.Agents[2*n+k]
			pod := fmt.Sprintf("agent-%d-%s", n, net)
			kubetest.AgentPod(t, cs, kubetest.Agent{Name: pod, Namespace: "netscript", Node: name, Labels: labels,
				HostNetwork: net == "host", IP: a.Address, Ready: true, Port: 12866})
			network[pod], zone[pod], node[pod] = net, z, name
		}
	}
	// A bystander pod the selector does not take.
	kubetest.AgentPod(t, cs, kubetest.Agent{Name: "web", Namespace: "netscript", Node: "node-0",
		Labels: map[string]string{"app": "web"}, IP: "198.18.1.9", Ready: true})
	// The agent of node-2's pod network dies before the mesh.
	dead := "agent-2-pod"
	if err := sim.Agents[4].Proc.Stop(); err != nil {
		t.Logf("stopping %s: %v", dead, err)
	}
	<-sim.Agents[4].Proc.Done()

	dir := t.TempDir()
	lines, picture, junit := filepath.Join(dir, "mesh.jsonl"), filepath.Join(dir, "mesh.png"), filepath.Join(dir, "junit.xml")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := sim.Ctl.Command(ctx, bin, "--token-file", sim.TokenFile, "--allow-net", "--allow-write", dir, "--json-lines", lines,
		"--junit", junit, "../../scripts/kube_mesh.star", "duration=0.3", "plot="+picture, "tolerance=1000")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := childproc.Run(cmd); err != nil {
		t.Fatalf("the mesh: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	t.Logf("the mesh printed:\n%s", out)

	// Every ordered pair of the five agents up, once, in its group.
	up := []string{}
	for pod := range network {
		if pod != dead {
			up = append(up, pod)
		}
	}
	want := map[string]bool{}
	for _, a := range up {
		for _, b := range up {
			if a != b {
				want[a+">"+b+" "+group(node, zone, a, b)] = true
			}
		}
	}
	got := brands(t, lines)
	for b, n := range got {
		if !want[b] || n != 1 {
			t.Errorf("result %q %d times; want each of %d pairs once", b, n, len(want))
		}
	}
	for b := range want {
		if got[b] == 0 {
			t.Errorf("pair %q not measured", b)
		}
	}

	// The printout: the dead agent and its failed cells, the groups.
	for _, w := range []string{"5 agents up, 1 down: 20 tests", "1 agent(s) down: " + dead + ": ",
		"same-node", "same-zone", "cross-zone", "pod>host", "host>pod", "wrote " + picture} {
		if !strings.Contains(out, w) {
			t.Errorf("the printout lacks %q", w)
		}
	}
	// The tolerance is a check: a pod network at most 1000 % below the
	// host network's passes, and --junit says so.
	if !strings.Contains(out, "check PASS pod network's median tcp_rr below the host network's") {
		t.Errorf("the printout lacks the tolerance's passing check")
	}
	if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), `tests="1"`) || strings.Contains(string(x), "<failure") {
		t.Errorf("--junit: %v\n%s", err, x)
	}
	if strings.Contains(out, "web") {
		t.Error("the bystander pod was taken for an agent")
	}
	if n := strings.Count(matrixOf(out), " x"); n != 10 {
		t.Errorf("%d failed cells in the matrix, want 10 (the dead agent's row and column)", n)
	}
	// A tolerance the pod network cannot meet (more than 100000 % faster
	// than the host network) fails its check: exit status 4, a failure in
	// --junit. One zone's pairs are enough to have both networks.
	cmd = sim.Ctl.Command(ctx, bin, "--token-file", sim.TokenFile, "--allow-net", "--allow-write", dir, "--junit", junit,
		"../../scripts/kube_mesh.star", "duration=0.3", "groups=same-zone", "tolerance=-100000")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := childproc.Run(cmd)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Errorf("a tolerance not met: %v, want exit status 4\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), "<failure") || !strings.Contains(string(x), "below the host network") {
		t.Errorf("--junit of a tolerance not met: %v\n%s", err, x)
	}

	// The same mesh with the agents found through the headless Service's
	// DNS records (dnsmasq serving what CoreDNS would): no nodes or zones,
	// so every pair is in the group "unknown".
	const svcName = "netscript-agents.netscript.svc.cluster.local"
	var records []string
	dnsWant := map[string]bool{}
	for i, a := range sim.Agents {
		host := fmt.Sprintf("agent-%d.%s", i, svcName)
		records = append(records, "--host-record="+host+","+a.Address, fmt.Sprintf("--srv-host=_control._tcp.%s,%s,12866", svcName, host))
		for j := range sim.Agents {
			if i != j && i != 4 && j != 4 {
				dnsWant[fmt.Sprintf("agent-%d.%s>agent-%d.%s unknown", i, svcName, j, svcName)] = true
			}
		}
	}
	dns := kubetest.DNS(t, sim.Ctl, "cluster.local", records...)
	cmd = sim.Ctl.Command(ctx, bin, "--token-file", sim.TokenFile, "--allow-net", "--json-lines", lines+".dns",
		"../../scripts/kube_mesh.star", "source=dns", "dns_server="+dns, "duration=0.3")
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := childproc.Run(cmd); err != nil {
		t.Fatalf("the mesh by DNS: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if got := brands(t, lines+".dns"); !maps.Equal(got, countOnce(dnsWant)) {
		t.Errorf("the mesh by DNS measured %v\nwant each of %v once", got, dnsWant)
	}
	if !strings.Contains(stdout.String(), "5 agents up, 1 down: 20 tests") {
		t.Errorf("the mesh by DNS printed:\n%s", stdout.String())
	}

	// fleet.service reads a ClusterIP Service's address and control port.
	svc, err := cs.CoreV1().Services("netscript").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "netscript-agents-vip"},
		Spec: corev1.ServiceSpec{Selector: labels, SessionAffinity: corev1.ServiceAffinityClientIP, Ports: []corev1.ServicePort{
			{Name: "data", Port: 12867}, {Name: "control", Port: 12866}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cmd = sim.Ctl.Command(ctx, bin, "-c", `print(fleet.service("netscript-agents-vip", namespace="netscript"))`)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	if got, err := childproc.CombinedOutput(cmd); err != nil || strings.TrimSpace(string(got)) != svc.Spec.ClusterIP+":12866" {
		t.Errorf("fleet.service: %q, %v; want %s:12866", got, err, svc.Spec.ClusterIP)
	}
	throughService(t, ctx, bin, sim, c, svc.Spec.ClusterIP, sim.Agents[0].Address, filepath.Join(dir, "via.jsonl"))

	png, err := os.ReadFile(picture)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("the heat map: %v (%d bytes)", err, len(png))
	}
}

// brands counts the results of a JSON lines file by brand, checking
// each completed transactions.
func brands(t *testing.T, path string) map[string]int {
	t.Helper()
	got := map[string]int{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l struct {
			Kind   string
			Brand  string
			Result struct {
				Transactions int64
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Kind != "result" {
			continue
		}
		got[l.Brand]++
		if l.Result.Transactions <= 0 {
			t.Errorf("%s: %d transactions", l.Brand, l.Result.Transactions)
		}
	}
	return got
}

// countOnce is each key of want counted once.
func countOnce(want map[string]bool) map[string]int {
	m := map[string]int{}
	for k := range want {
		m[k] = 1
	}
	return m
}

// group is the group a pair of agents falls in, from the test's layout.
func group(node, zone map[string]string, a, b string) string {
	switch {
	case node[a] == node[b]:
		return "same-node"
	case zone[a] == zone[b]:
		return "same-zone"
	}
	return "cross-zone"
}

// matrixOf returns the lines of the matrix in the mesh's printout.
func matrixOf(out string) string {
	lines := strings.Split(out, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "client by row") })
	if i < 0 {
		return ""
	}
	var m []string
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		m = append(m, l)
	}
	return strings.Join(m, "\n")
}
