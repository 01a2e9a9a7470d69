// Command kube-proxy is Kubernetes' Service proxy, built from the module
// proxy for netscript's test through a Service (internal/kubetest): this
// directory is a Go module of its own, outside netscript's go.mod, as
// kas/ is for kube-apiserver. `make kube-apiserver` builds both once per
// machine into a cache.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-proxy/app"
)

func main() {
	os.Exit(cli.Run(app.NewProxyCommand()))
}
