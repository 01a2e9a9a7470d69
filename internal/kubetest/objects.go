package kubetest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Clientset returns a client of every API group for the administrator.
func (c *Cluster) Clientset(t testing.TB) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// Namespace creates a namespace and its "default" ServiceAccount, which
// the controller manager would make and without which the API server
// admits no pod there.
func Namespace(t testing.TB, cs kubernetes.Interface, name string) {
	t.Helper()
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}}
	if _, err := cs.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create service account %s/default: %v", name, err)
	}
}

// Node creates a node with the given labels (topology.kubernetes.io/zone
// and so on) and its internal address.
func Node(t testing.TB, cs kubernetes.Interface, name, address string, labels map[string]string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	n, err := cs.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create node %s: %v", name, err)
	}
	if address == "" {
		return
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: address}}
	if _, err := cs.CoreV1().Nodes().UpdateStatus(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("set the address of node %s: %v", name, err)
	}
}

// Agent describes one agent pod for [AgentPod].
type Agent struct {
	Name, Namespace, Node string
	Labels                map[string]string
	HostNetwork           bool
	IP                    string // "" leaves the pod without an address (Pending)
	Ready                 bool
	Port                  int32 // the container port named "control" (0: none)
}

// AgentPod creates the pod of an agent, bound to its node (no scheduler
// runs), and sets what a kubelet would report through the status
// subresource: its IP and whether it is Ready.
func AgentPod(t testing.TB, cs kubernetes.Interface, a Agent) {
	t.Helper()
	ctx := context.Background()
	c := corev1.Container{Name: "agent", Image: "netscript:test", Args: []string{"serve"}}
	if a.Port != 0 {
		c.Ports = []corev1.ContainerPort{{Name: "control", ContainerPort: a.Port}}
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: a.Name, Namespace: a.Namespace, Labels: a.Labels},
		Spec: corev1.PodSpec{
			NodeName:    a.Node,
			HostNetwork: a.HostNetwork,
			Containers:  []corev1.Container{c},
		},
	}
	p, err := cs.CoreV1().Pods(a.Namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s/%s: %v", a.Namespace, a.Name, err)
	}
	if a.IP == "" {
		return
	}
	status := corev1.ConditionFalse
	if a.Ready {
		status = corev1.ConditionTrue
	}
	p.Status = corev1.PodStatus{
		Phase:      corev1.PodRunning,
		PodIP:      a.IP,
		PodIPs:     []corev1.PodIP{{IP: a.IP}},
		HostIP:     a.IP,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}},
	}
	if _, err := cs.CoreV1().Pods(a.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("set the status of pod %s/%s: %v", a.Namespace, a.Name, err)
	}
}
