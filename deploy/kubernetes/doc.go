// Package kubernetes holds netscript's Kubernetes manifests, the YAML
// files beside this one (docs/kubernetes.md says how to apply them), and
// the tests that hold them to the Kubernetes API: decoded strictly with
// the API's own types of the release netscript's client is of, and
// created with server-side dry run in a real API server.
package kubernetes

import "embed"

// Manifests are the YAML files of this directory, kustomization.yaml
// among them.
//
//go:embed *.yaml
var Manifests embed.FS
