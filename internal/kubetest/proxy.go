package kubetest

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"netscript/engine/netns"
)

// Proxy runs a real kube-proxy (nftables mode, built by the recipe in
// kproxy/) inside ns as the node named node, reading Services and
// EndpointSlices from the cluster: the virtual IPs of Services reached
// through ns are translated to their endpoints. Every connection to a
// Service is masqueraded (--masquerade-all), as ns routes between the
// nodes' namespaces and a reply must come back through it to be
// translated back. It is killed at cleanup; its nftables table goes with
// the namespace.
func (c *Cluster) Proxy(t testing.TB, ns *netns.NS, node string) *netns.Proc {
	t.Helper()
	bin := Proxy().Binary(t)
	ports := freePorts(t, ns, 2) // it takes no port 0 for its metrics and health
	return ns.Start(t, bin, "--kubeconfig="+c.Kubeconfig, "--proxy-mode=nftables", "--hostname-override="+node,
		"--masquerade-all", "--cluster-cidr=198.18.0.0/15", "--conntrack-max-per-core=0",
		"--conntrack-tcp-timeout-established=0", "--conntrack-tcp-timeout-close-wait=0",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", ports[0]), fmt.Sprintf("--healthz-bind-address=127.0.0.1:%d", ports[1]), "--v=2")
}

// EndpointSlice creates the EndpointSlice of the Service svc: each address
// ready, with the ports given by name, as the endpoint-slice controller
// would make from the pods the Service selects (no controller manager
// runs here).
func EndpointSlice(t testing.TB, cs kubernetes.Interface, namespace, svc string, addresses []string, ports map[string]int32) {
	t.Helper()
	ready := true
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: svc + "-test", Namespace: namespace,
			Labels: map[string]string{discoveryv1.LabelServiceName: svc, discoveryv1.LabelManagedBy: "netscript-kubetest"}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	for _, a := range addresses {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{a}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	}
	for name, port := range ports {
		tcp := corev1.ProtocolTCP
		s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &tcp})
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(namespace).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create the EndpointSlice of %s/%s: %v", namespace, svc, err)
	}
}
