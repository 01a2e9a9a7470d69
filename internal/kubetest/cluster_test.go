package kubetest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"netscript/engine/netns"
)

// TestCluster: the API server answers the administrator, keeps what it is
// given (a Node, through etcd) and refuses a stranger.
func TestCluster(t *testing.T) {
	c := Start(t, netns.New(t, "kube"))
	cs, err := kubernetes.NewForConfig(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	n, err := cs.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	if err != nil || n.Name != "n1" {
		t.Fatalf("%v %v", n, err)
	}
	stranger, _ := kubernetes.NewForConfig(c.ConfigFor("not-a-token-of-this-cluster"))
	if _, err := stranger.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
		t.Error("a stranger listed nodes")
	}
}
