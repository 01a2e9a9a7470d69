package kubernetes

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	sigyaml "sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite configmap-mesh.yaml from scripts/kube_mesh.star")

// object is one document of a manifest file.
type object struct {
	file string
	obj  runtime.Object
	raw  []byte
}

// strict decodes YAML into the API's types and refuses unknown or
// duplicated fields, as kubectl's server-side field validation does.
var strict = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
	json.SerializerOptions{Yaml: true, Strict: true})

// decodeAll reads every document of every manifest but kustomization.yaml.
func decodeAll(t *testing.T) []object {
	t.Helper()
	files, err := fs.Glob(Manifests, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var objs []object
	for _, f := range files {
		if f == "kustomization.yaml" {
			continue
		}
		b, err := Manifests.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			obj, _, err := strict.Decode(doc, nil, nil)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			objs = append(objs, object{file: f, obj: obj, raw: doc})
		}
	}
	return objs
}

func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) {
			out = append(out, l...)
			out = append(out, '\n')
		}
	}
	return out
}

// TestStrictDecoder: the decoder the tests trust does refuse a field the
// API does not have.
func TestStrictDecoder(t *testing.T) {
	bad := "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  selectr: {a: b}\n"
	if _, _, err := strict.Decode([]byte(bad), nil, nil); err == nil || !strings.Contains(err.Error(), "selectr") {
		t.Errorf("a misspelt field: %v", err)
	}
}

// TestManifests: every manifest is a valid object of the API's own types,
// in the netscript namespace; the agents run unprivileged with no
// capability and no CPU limit; the host-network agents are the only ones
// on the node's network; discovery's RBAC reads, and reads no Secret.
func TestManifests(t *testing.T) {
	objs := decodeAll(t)
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.obj.GetObjectKind().GroupVersionKind().Kind]++
	}
	want := map[string]int{"Namespace": 1, "Secret": 1, "ServiceAccount": 2, "Role": 1, "RoleBinding": 1,
		"ClusterRole": 1, "ClusterRoleBinding": 1, "DaemonSet": 2, "Service": 2, "ConfigMap": 1, "Job": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s, want %d", kinds[k], k, n)
		}
	}
	for _, o := range objs {
		switch v := o.obj.(type) {
		case *appsv1.DaemonSet:
			checkPod(t, o.file, &v.Spec.Template.Spec)
			if host := v.Spec.Template.Spec.HostNetwork; host != (o.file == "daemonset-host.yaml") {
				t.Errorf("%s: hostNetwork %v", o.file, host)
			}
			if v.Spec.Template.Labels["app.kubernetes.io/name"] != "netscript-agent" {
				t.Errorf("%s: the pods are not labelled as agents: %v", o.file, v.Spec.Template.Labels)
			}
		case *batchv1.Job:
			checkPod(t, o.file, &v.Spec.Template.Spec)
			if v.Spec.Template.Spec.ServiceAccountName != "netscript-controller" {
				t.Errorf("%s: runs as %s", o.file, v.Spec.Template.Spec.ServiceAccountName)
			}
		case *rbacv1.Role:
			checkRules(t, o.file, v.Rules)
		case *rbacv1.ClusterRole:
			checkRules(t, o.file, v.Rules)
		case *corev1.Namespace:
			continue
		}
		if m, ok := o.obj.(interface{ GetNamespace() string }); ok {
			_, cluster := o.obj.(*rbacv1.ClusterRole)
			_, binding := o.obj.(*rbacv1.ClusterRoleBinding)
			if ns := m.GetNamespace(); ns != "netscript" && !cluster && !binding {
				t.Errorf("%s: namespace %q", o.file, ns)
			}
		}
	}
}

// checkPod holds a pod template to what docs/kubernetes.md promises.
func checkPod(t *testing.T, file string, p *corev1.PodSpec) {
	t.Helper()
	sc := p.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != 65532 {
		t.Errorf("%s: not held to uid 65532: %+v", file, sc)
	}
	for _, c := range p.Containers {
		cs := c.SecurityContext
		if cs == nil || cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation ||
			cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem || cs.Privileged != nil && *cs.Privileged ||
			cs.Capabilities == nil || !slices.Equal(cs.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(cs.Capabilities.Add) != 0 {
			t.Errorf("%s: container %s: %+v", file, c.Name, cs)
		}
		if _, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
			t.Errorf("%s: a CPU limit would be measured as the network", file)
		}
		if !slices.Contains(c.Args, "--token-file") {
			t.Errorf("%s: no token: %v", file, c.Args)
		}
	}
}

// checkRules: reads only, and no Secrets.
func checkRules(t *testing.T, file string, rules []rbacv1.PolicyRule) {
	t.Helper()
	for _, r := range rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" {
				t.Errorf("%s: verb %s", file, v)
			}
		}
		for _, res := range r.Resources {
			if res != "pods" && res != "nodes" && res != "services" {
				t.Errorf("%s: resource %s", file, res)
			}
		}
	}
}

// TestKustomization: kustomization.yaml lists every manifest.
func TestKustomization(t *testing.T) {
	b, err := Manifests.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	if err := sigyaml.UnmarshalStrict(b, &k); err != nil {
		t.Fatal(err)
	}
	files, _ := fs.Glob(Manifests, "*.yaml")
	files = slices.DeleteFunc(files, func(f string) bool { return f == "kustomization.yaml" })
	res := slices.Clone(k.Resources)
	slices.Sort(res)
	if !slices.Equal(res, files) || k.Kind != "Kustomization" {
		t.Errorf("kustomization lists %v, the directory holds %v", res, files)
	}
}

// configMapFor is configmap-mesh.yaml for the script's text.
func configMapFor(script string) string {
	var b strings.Builder
	b.WriteString(`# The mesh script for the Job (job-mesh.yaml): scripts/kube_mesh.star as it
# is (go test ./deploy/kubernetes -update writes this file from it).
apiVersion: v1
kind: ConfigMap
metadata:
  name: netscript-mesh
  namespace: netscript
  labels:
    app.kubernetes.io/part-of: netscript
data:
  kube_mesh.star: |
`)
	for _, l := range strings.SplitAfter(script, "\n") {
		if strings.TrimSpace(l) == "" {
			b.WriteString(strings.TrimLeft(l, " \t"))
		} else if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}

// TestConfigMapHoldsTheScript: the Job runs scripts/kube_mesh.star as it is.
func TestConfigMapHoldsTheScript(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "kube_mesh.star"))
	if err != nil {
		t.Fatal(err)
	}
	want := configMapFor(string(script))
	if *update {
		if err := os.WriteFile("configmap-mesh.yaml", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("configmap-mesh.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("configmap-mesh.yaml is not scripts/kube_mesh.star: go test ./deploy/kubernetes -update")
	}
	var cm corev1.ConfigMap
	if _, _, err := strict.Decode(got, nil, &cm); err != nil || cm.Data["kube_mesh.star"] != string(script) {
		t.Errorf("the ConfigMap decodes to another script: %v", err)
	}
}
