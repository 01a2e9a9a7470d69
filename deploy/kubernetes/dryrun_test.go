package kubernetes

import (
	"context"
	"strings"
	"testing"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"netscript/engine/netns"
	"netscript/fleet/kube"
	"netscript/internal/kubetest"
)

// TestDryRunAndRBAC: a real API server takes every manifest with
// server-side dry run (its admission and validation, with strict field
// validation), and the controller's account, created from rbac.yaml and
// serviceaccounts.yaml, finds the agents and can do nothing else: no
// Secret, no pod of another namespace, no write.
func TestDryRunAndRBAC(t *testing.T) {
	c := kubetest.Start(t, netns.New(t, "kube"))
	cfg := c.Config()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	create := func(o object, dry bool) error {
		u := &unstructured.Unstructured{}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.obj)
		if err != nil {
			return err
		}
		u.Object = m
		gvk := o.obj.GetObjectKind().GroupVersionKind()
		u.SetGroupVersionKind(gvk)
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return err
		}
		opts := metav1.CreateOptions{FieldValidation: "Strict"}
		if dry {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err = dyn.Resource(mapping.Resource).Namespace(u.GetNamespace()).Create(ctx, u, opts)
		return err
	}
	objs := decodeAll(t)
	// The namespace first, dry and then for real, so the others have
	// where to go; then every object dry; then the accounts and RBAC for
	// real.
	for _, o := range objs {
		if _, ok := o.obj.(*corev1.Namespace); ok {
			if err := create(o, true); err != nil {
				t.Fatalf("%s: dry run: %v", o.file, err)
			}
			if err := create(o, false); err != nil {
				t.Fatalf("%s: %v", o.file, err)
			}
		}
	}
	for _, o := range objs {
		if _, ok := o.obj.(*corev1.Namespace); ok {
			continue
		}
		if err := create(o, true); err != nil {
			t.Errorf("%s: dry run: %v", o.file, err)
		}
	}
	for _, o := range objs {
		if o.file == "serviceaccounts.yaml" || o.file == "rbac.yaml" {
			if err := create(o, false); err != nil {
				t.Fatalf("%s: %v", o.file, err)
			}
		}
	}

	admin := c.Clientset(t)
	kubetest.Node(t, admin, "n1", "198.18.10.1", map[string]string{"topology.kubernetes.io/zone": "za"})
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "netscript"}}
	if _, err := admin.CoreV1().ServiceAccounts("netscript").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubetest.AgentPod(t, admin, kubetest.Agent{Name: "agent-a", Namespace: "netscript", Node: "n1", IP: "198.18.1.2", Ready: true,
		Labels: map[string]string{"app.kubernetes.io/name": "netscript-agent"}})
	tr, err := admin.CoreV1().ServiceAccounts("netscript").CreateToken(ctx, "netscript-controller", &authv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kube.New(c.ConfigFor(tr.Status.Token))
	if err != nil {
		t.Fatal(err)
	}
	agents, err := k.Find(ctx, kube.Query{})
	if err != nil || len(agents) != 1 || agents[0].Zone != "za" {
		t.Fatalf("the controller found %v: %v", agents, err)
	}
	ctl, err := clientset.NewForConfig(c.ConfigFor(tr.Status.Token))
	if err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"list secrets":        second(ctl.CoreV1().Secrets("netscript").List(ctx, metav1.ListOptions{})),
		"get a pod":           second(ctl.CoreV1().Pods("netscript").Get(ctx, "agent-a", metav1.GetOptions{})),
		"list kube-system":    second(ctl.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{})),
		"delete a pod":        ctl.CoreV1().Pods("netscript").Delete(ctx, "agent-a", metav1.DeleteOptions{}),
		"create a pod":        second(ctl.CoreV1().Pods("netscript").Create(ctx, &corev1.Pod{}, metav1.CreateOptions{})),
		"get node n1's specs": second(ctl.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})),
	} {
		if err == nil || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("the controller may %s: %v", what, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }
