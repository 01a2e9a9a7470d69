// Command kube-apiserver is Kubernetes' API server, built from the module
// proxy for netscript's discovery tests (internal/kubetest): this
// directory is a Go module of its own, outside netscript's go.mod, so
// netscript's build, vet and go mod tidy never see Kubernetes' server.
// `make kube-apiserver` builds it once per machine into a cache.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
