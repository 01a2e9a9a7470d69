package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"netscript/engine/netns"
	"netscript/fleet"
	"netscript/internal/kubetest"
)

var agentLabels = map[string]string{"app.kubernetes.io/name": "netscript-agent"}

// TestFind: against a real API server, the agents are the pods the
// selector matches, with the address their status gives, their node's
// zone and region (the well-known labels, or the deprecated ones), their
// network, readiness and control port; other pods are not agents.
func TestFind(t *testing.T) {
	c := kubetest.Start(t, netns.New(t, "kube"))
	cs := c.Clientset(t)
	kubetest.Namespace(t, cs, "netscript")
	kubetest.Namespace(t, cs, "other")
	kubetest.Node(t, cs, "n1", "198.18.10.1", map[string]string{"topology.kubernetes.io/zone": "za", "topology.kubernetes.io/region": "r"})
	kubetest.Node(t, cs, "n2", "198.18.10.2", map[string]string{"failure-domain.beta.kubernetes.io/zone": "zb", "failure-domain.beta.kubernetes.io/region": "r"})
	kubetest.Node(t, cs, "n3", "198.18.10.3", nil)
	for _, a := range []kubetest.Agent{
		{Name: "agent-a", Node: "n1", IP: "198.18.1.2", Ready: true, Port: 12866},
		{Name: "agent-b", Node: "n2", IP: "198.18.2.2", Ready: true, Port: 13000},
		{Name: "agent-c", Node: "n3", IP: "198.18.3.2", Ready: false},
		{Name: "agent-d", Node: "n1", IP: "198.18.10.1", Ready: true, HostNetwork: true, Port: 12866},
		{Name: "agent-e", Node: "n2"}, // Pending: no address yet
		{Name: "bystander", Node: "n1", IP: "198.18.1.9", Ready: true, Labels: map[string]string{"app": "web"}},
	} {
		a.Namespace = "netscript"
		if a.Labels == nil {
			a.Labels = agentLabels
		}
		kubetest.AgentPod(t, cs, a)
	}
	kubetest.AgentPod(t, cs, kubetest.Agent{Name: "elsewhere", Namespace: "other", Node: "n1", IP: "198.18.1.8", Ready: true, Labels: agentLabels})

	k, err := New(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	agents, err := k.Find(context.Background(), Query{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range agents {
		got = append(got, fmt.Sprintf("%s/%s %s node=%s zone=%s region=%s net=%s ready=%v", a.Namespace, a.Name, a.Control(), a.Node, a.Zone, a.Region, a.Network, a.Ready))
	}
	want := []string{
		"netscript/agent-a 198.18.1.2:12866 node=n1 zone=za region=r net=pod ready=true",
		"netscript/agent-b 198.18.2.2:13000 node=n2 zone=zb region=r net=pod ready=true",
		"netscript/agent-c 198.18.3.2:12866 node=n3 zone= region= net=pod ready=false",
		"netscript/agent-d 198.18.10.1:12866 node=n1 zone=za region=r net=host ready=true",
		"netscript/agent-e invalid AddrPort node=n2 zone=zb region=r net=pod ready=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g := fleet.Group(agents[0], agents[3]); g != fleet.SameNode {
		t.Errorf("agent-a and agent-d: %s", g)
	}
	if g := fleet.Group(agents[0], agents[1]); g != fleet.CrossZone {
		t.Errorf("agent-a and agent-b: %s", g)
	}

	// Another namespace and selector; a port asked for wins.
	other, err := k.Find(context.Background(), Query{Namespace: "other", Port: 9999})
	if err != nil || len(other) != 1 || other[0].Control() != "198.18.1.8:9999" {
		t.Errorf("namespace other: %v %v", other, err)
	}
	web, err := k.Find(context.Background(), Query{Selector: "app=web"})
	if err != nil || len(web) != 1 || web[0].Name != "bystander" {
		t.Errorf("app=web: %v %v", web, err)
	}
	if _, err := k.Find(context.Background(), Query{Selector: "app in ("}); err == nil {
		t.Error("a malformed selector was taken")
	}

	// The kubeconfig names the cluster as kubectl would read it.
	cfg, ns, err := load(Source{Kubeconfig: c.Kubeconfig})
	if err != nil || cfg.Host != c.URL || ns != DefaultNamespace {
		t.Fatalf("kubeconfig: %v %q %v", cfg, ns, err)
	}
	if _, _, err := load(Source{Kubeconfig: c.Kubeconfig, Context: "no-such-context"}); err == nil || !strings.Contains(err.Error(), "no-such-context") {
		t.Errorf("an unknown context: %v", err)
	}
}
