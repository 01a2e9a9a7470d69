// Package kube finds the agents of a fleet through the Kubernetes API: the
// pods of the agents' DaemonSets, listed by label selector, and the nodes
// they run on, for each agent's address, node, zone and region, and
// whether it shares its node's network (hostNetwork: true).
//
// It reads what RBAC's smallest grant allows (deploy/kubernetes/rbac.yaml):
// list pods in the agents' namespace, list nodes' metadata, get a Service.
// The configuration is a kubeconfig (as kubectl finds it: an explicit
// path, $KUBECONFIG, ~/.kube/config) or, inside a pod, the pod's service
// account.
package kube

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"netscript/fleet"
)

// The defaults of deploy/kubernetes: the agents' namespace, their pods'
// label, and the name of their control port.
const (
	DefaultNamespace = "netscript"
	DefaultSelector  = "app.kubernetes.io/name=netscript-agent"
	ControlPortName  = "control"
)

// The node labels a zone and a region are read from: the well-known ones,
// then the deprecated ones older clusters still set.
var (
	zoneLabels   = []string{"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}
	regionLabels = []string{"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"}
)

// pageSize is how many pods one list call returns: a fleet of thousands
// comes in pages rather than one reply of tens of megabytes.
const pageSize = 500

// Client reads a cluster's agents.
type Client struct {
	// Namespace is where Find looks when given none: the kubeconfig
	// context's namespace, the pod's own inside a cluster, else
	// DefaultNamespace.
	Namespace string
	// Host is the API server's URL, for messages.
	Host string

	core *rest.RESTClient
	meta metadata.Interface
}

// Connect loads the client configuration as kubectl does, from where src
// says (an explicit kubeconfig, else $KUBECONFIG or ~/.kube/config, else,
// inside a pod, the pod's service account), asks src.Reach about each
// host the client would reach, and makes the client. It sends nothing.
func Connect(src Source) (*Client, error) {
	cfg, ns, err := load(src)
	if err != nil {
		return nil, err
	}
	if src.Reach != nil {
		hs, err := hosts(cfg)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			if err := src.Reach(h); err != nil {
				return nil, err
			}
		}
	}
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	c.Namespace = ns
	return c, nil
}

// load finds the configuration and the namespace as Connect says.
func load(src Source) (*rest.Config, string, error) {
	var cc clientcmd.ClientConfig
	if src.Open != nil && src.Kubeconfig != "" {
		var err error
		if cc, err = src.confined(); err != nil {
			return nil, "", err
		}
	} else {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = src.Kubeconfig
		cc = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: src.Context})
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, "", fmt.Errorf("kubernetes: no configuration: not inside a cluster, and no kubeconfig ($KUBECONFIG, ~/.kube/config, or name one)")
		}
		return nil, "", fmt.Errorf("kubernetes: %w", err)
	}
	ns, explicit, err := cc.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("kubernetes: namespace: %w", err)
	}
	if !explicit && ns == "default" {
		ns = DefaultNamespace // kubectl's "default" is no place for the agents
	}
	return cfg, ns, nil
}

// New makes a client from a client-go configuration; its Namespace is
// DefaultNamespace.
func New(cfg *rest.Config) (*Client, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	cc := rest.CopyConfig(cfg)
	cc.GroupVersion = &corev1.SchemeGroupVersion
	cc.APIPath = "/api"
	cc.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	if cc.UserAgent == "" {
		cc.UserAgent = "netscript"
	}
	// A fleet of a thousand agents is one list of pods and one of nodes:
	// the default rate limit (5 a second) never bites.
	core, err := rest.RESTClientFor(cc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %w", err)
	}
	meta, err := metadata.NewForConfig(cc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %w", err)
	}
	return &Client{Namespace: DefaultNamespace, Host: cfg.Host, core: core, meta: meta}, nil
}

// Query says which pods are agents and how to reach them.
type Query struct {
	Namespace string // "" is the client's Namespace
	Selector  string // a label selector; "" is DefaultSelector
	// Family picks the address of a dual-stack pod: "inet", "inet6", or
	// "" for the first the pod lists.
	Family string
	// Port is the control port; 0 takes the pod's container port named
	// "control", else fleet.DefaultPort.
	Port uint16
}

// Find lists the agents: every pod the selector matches, in the order of
// their names, with its address, node, zone and region. A pod that is not
// Ready is listed with Ready false; one with no address yet (Pending) has
// an invalid Address.
func (c *Client) Find(ctx context.Context, q Query) ([]fleet.Agent, error) {
	if q.Namespace == "" {
		q.Namespace = c.Namespace
	}
	if q.Selector == "" {
		q.Selector = DefaultSelector
	}
	if q.Family != "" && q.Family != "inet" && q.Family != "inet6" {
		return nil, fmt.Errorf("kubernetes: family %q: want \"inet\", \"inet6\" or none", q.Family)
	}
	pods, err := c.pods(ctx, q)
	if err != nil {
		return nil, err
	}
	nodes, err := c.nodes(ctx, pods)
	if err != nil {
		return nil, err
	}
	agents := make([]fleet.Agent, 0, len(pods))
	for _, p := range pods {
		a := fleet.Agent{
			Name:      p.Name,
			Namespace: p.Namespace,
			Address:   podAddress(&p, q.Family),
			Port:      controlPort(&p, q.Port),
			Node:      p.Spec.NodeName,
			Network:   fleet.PodNetwork,
			Ready:     ready(&p),
		}
		if p.Spec.HostNetwork {
			a.Network = fleet.HostNetwork
		}
		if n, ok := nodes[a.Node]; ok {
			a.Zone, a.Region = label(n, zoneLabels), label(n, regionLabels)
		}
		agents = append(agents, a)
	}
	slices.SortFunc(agents, func(a, b fleet.Agent) int { return strings.Compare(a.Name, b.Name) })
	return agents, nil
}

// pods lists the pods the query selects, page by page.
func (c *Client) pods(ctx context.Context, q Query) ([]corev1.Pod, error) {
	var all []corev1.Pod
	opts := metav1.ListOptions{LabelSelector: q.Selector, Limit: pageSize}
	for {
		var page corev1.PodList
		err := c.core.Get().Namespace(q.Namespace).Resource("pods").
			VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(&page)
		if err != nil {
			return nil, c.explain(err, fmt.Sprintf("list pods in namespace %s (selector %s)", q.Namespace, q.Selector))
		}
		all = append(all, page.Items...)
		if page.Continue == "" {
			return all, nil
		}
		opts.Continue = page.Continue
	}
}

// nodes reads the labels of the nodes the pods run on: one list of every
// node's metadata (a few hundred bytes a node), not a call per node.
func (c *Client) nodes(ctx context.Context, pods []corev1.Pod) (map[string]*metav1.PartialObjectMetadata, error) {
	want := make(map[string]bool)
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			want[p.Spec.NodeName] = true
		}
	}
	out := make(map[string]*metav1.PartialObjectMetadata, len(want))
	if len(want) == 0 {
		return out, nil
	}
	res := c.meta.Resource(schema.GroupVersionResource{Version: "v1", Resource: "nodes"})
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := res.List(ctx, opts)
		if err != nil {
			return nil, c.explain(err, "list nodes")
		}
		for i := range list.Items {
			if n := &list.Items[i]; want[n.Name] {
				out[n.Name] = n
			}
		}
		if list.Continue == "" {
			return out, nil
		}
		opts.Continue = list.Continue
	}
}

// Service returns the cluster IP and the port named "control" (else the
// first) of a Service, for tests through it: the address kube-proxy or the
// CNI balances over the agents.
func (c *Client) Service(ctx context.Context, namespace, name string) (netip.AddrPort, error) {
	if namespace == "" {
		namespace = c.Namespace
	}
	var svc corev1.Service
	err := c.core.Get().Namespace(namespace).Resource("services").Name(name).Do(ctx).Into(&svc)
	if err != nil {
		return netip.AddrPort{}, c.explain(err, fmt.Sprintf("get service %s/%s", namespace, name))
	}
	ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("kubernetes: service %s/%s has no cluster IP (%q): a headless Service balances nothing; name one of type ClusterIP", namespace, name, svc.Spec.ClusterIP)
	}
	if len(svc.Spec.Ports) == 0 {
		return netip.AddrPort{}, fmt.Errorf("kubernetes: service %s/%s has no ports", namespace, name)
	}
	port := svc.Spec.Ports[0].Port
	for _, p := range svc.Spec.Ports {
		if p.Name == ControlPortName {
			port = p.Port
		}
	}
	return netip.AddrPortFrom(ip, uint16(port)), nil
}

// explain wraps an API error with what was being done and, for a refusal,
// what grant it lacked.
func (c *Client) explain(err error, what string) error {
	msg := fmt.Sprintf("kubernetes %s: %s", c.Host, what)
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: %w (the account needs the grants of deploy/kubernetes/rbac.yaml)", msg, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: %w (the kubeconfig's or service account's credentials were refused)", msg, err)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// podAddress is the pod's address of family ("" the first it has), or
// the zero Addr if it has none yet.
func podAddress(p *corev1.Pod, family string) netip.Addr {
	ips := p.Status.PodIPs
	if len(ips) == 0 && p.Status.PodIP != "" {
		ips = []corev1.PodIP{{IP: p.Status.PodIP}}
	}
	for _, ip := range ips {
		a, err := netip.ParseAddr(ip.IP)
		if err != nil {
			continue
		}
		if family == "" || (family == "inet") == a.Is4() {
			return a.Unmap()
		}
	}
	return netip.Addr{}
}

// controlPort is the port asked for, else the pod's container port named
// "control", else the daemon's default.
func controlPort(p *corev1.Pod, asked uint16) uint16 {
	if asked != 0 {
		return asked
	}
	for _, c := range p.Spec.Containers {
		for _, port := range c.Ports {
			if port.Name == ControlPortName && port.ContainerPort > 0 && port.ContainerPort < 1<<16 {
				return uint16(port.ContainerPort)
			}
		}
	}
	return fleet.DefaultPort
}

// ready says whether the pod's Ready condition is True.
func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// label is the first of keys the object carries.
func label(o *metav1.PartialObjectMetadata, keys []string) string {
	for _, k := range keys {
		if v, ok := o.Labels[k]; ok {
			return v
		}
	}
	return ""
}
