package fleet_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/internal/kubetest"
)

// throughService: kube_mesh.star's via= runs a test from each agent up
// through the ClusterIP Service netscript-agents-vip, whose virtual IP a
// real kube-proxy (nftables mode, in the namespace that routes between
// the nodes) translates to its one endpoint, the agent at endpoint. The
// Service's IP is on no interface: a test that completes went through
// kube-proxy's rules.
func throughService(t *testing.T, ctx context.Context, bin string, sim *kubetest.Sim, c *kubetest.Cluster, vip, endpoint, lines string) {
	t.Helper()
	cs := c.Clientset(t)
	kubetest.EndpointSlice(t, cs, "netscript", "netscript-agents-vip", []string{endpoint}, map[string]int32{"control": 12866, "data": 12867})
	proxy := c.Proxy(t, sim.Ctl, "node-ctl")
	// Wait for kube-proxy's rules: the virtual IP answers from a node.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := sim.Hosts[1].Do(func() error {
			conn, err := net.DialTimeout("tcp", net.JoinHostPort(vip, "12866"), time.Second)
			if err == nil {
				conn.Close()
			}
			return err
		})
		if err == nil {
			break
		}
		select {
		case <-proxy.Done():
			t.Fatalf("kube-proxy exited: %v\n%s", proxy.Err(), proxy.Output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Service's IP %s does not answer through kube-proxy: %v\n%s", vip, err, proxy.Output())
		}
		time.Sleep(200 * time.Millisecond)
	}

	cmd := sim.Ctl.Command(ctx, bin, "--token-file", sim.TokenFile, "--allow-net", "--json-lines", lines,
		"../../scripts/kube_mesh.star", "duration=0.3", "groups=same-node", "via=netscript-agents-vip")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := childproc.Run(cmd); err != nil {
		t.Fatalf("the mesh through the Service: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("the mesh through the Service printed:\n%s", stdout.String())
	if want := "through the Service netscript-agents-vip (" + vip + ":12866)"; !strings.Contains(stdout.String(), want) {
		t.Errorf("the printout lacks %q", want)
	}
	f, err := os.Open(lines)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	through := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l struct {
			Kind, Brand, Error string
			Result             *struct {
				Transactions int64
				Config       struct{ Host, Client string }
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Kind != "result" || !strings.HasSuffix(l.Brand, ">netscript-agents-vip service") {
			continue
		}
		through++
		if l.Error != "" || l.Result == nil || l.Result.Transactions <= 0 || strings.TrimSuffix(l.Result.Config.Host, ":12866") != vip {
			t.Errorf("%s: error %q, result %+v; want transactions to %s", l.Brand, l.Error, l.Result, vip)
		}
	}
	if through != 5 {
		t.Errorf("%d tests through the Service, want one from each of the 5 agents up", through)
	}
}
