// Command kasbuild builds kube-apiserver and kube-proxy from the recipes
// in internal/kubetest/kas and kproxy into the user's cache, unless they
// are already there, and prints their paths: `make kube-apiserver` runs
// it, and .ci/run before the tests.
package main

import (
	"fmt"
	"os"

	"netscript/internal/kubetest"
)

func main() {
	for _, r := range kubetest.Recipes() {
		path, err := r.Build(os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kasbuild:", err)
			os.Exit(1)
		}
		fmt.Println(path)
	}
}
