package fleet

import (
	"errors"
	"fmt"
	"io"

	"go.starlark.net/starlark"

	"netscript/fleet/kube"
	"netscript/session"
	"netscript/starlib/thread"
)

// permissions are the running script's permissions: nil, which allows
// everything, outside a session or for the person's own typing (-c, the
// REPL).
func permissions(th *starlark.Thread) *session.Permissions {
	if s, err := thread.Session(th); err == nil {
		return s.Perms
	}
	return nil
}

// reach returns the check of a host the builtin b reaches by itself, with
// what it does there for the prompt (issue 28's --allow-net).
func reach(th *starlark.Thread, b *starlark.Builtin, what string) func(host string) error {
	p := permissions(th)
	return func(host string) error {
		return p.CheckHost(b.Name(), host, fmt.Sprintf("%s: %s %s", b.Name(), what, host))
	}
}

// kubeSource is where fleet.kubernetes and fleet.service find the cluster:
// a kubeconfig the script names is read within its read permissions, and
// the API server is a host the person must allow.
func kubeSource(th *starlark.Thread, b *starlark.Builtin, kubeconfig, kubeContext string) kube.Source {
	src := kube.Source{Kubeconfig: kubeconfig, Context: kubeContext,
		Reach: reach(th, b, "read the agents from the Kubernetes API server at")}
	if p := permissions(th); p != nil {
		src.Open = func(path string) (io.ReadCloser, error) { return p.OpenModule(path) }
	}
	return src
}

// wrap puts the builtin's name before err, but for a host refused, whose
// error names the builtin already and must stay as it is to end the
// script even with keep_going.
func wrap(b *starlark.Builtin, err error) error {
	if nr := (*session.NetRefusedError)(nil); errors.As(err, &nr) {
		return err
	}
	return fmt.Errorf("%s: %w", b.Name(), err)
}
