// Command kasbuild builds kube-apiserver from the recipe in
// internal/kubetest/kas into the user's cache, unless it is already there,
// and prints its path: `make kube-apiserver` runs it, and .ci/run before
// the tests.
package main

import (
	"fmt"
	"os"

	"netscript/internal/kubetest"
)

func main() {
	path, err := kubetest.Build(kubetest.RecipeDir(), os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kasbuild:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}
