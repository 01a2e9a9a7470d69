package fleet

import (
	"fmt"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"netscript/fleet"
)

// Agent is one agent of a fleet as a script sees it: read-only, its
// fields named as docs/kubernetes.md lists them. Two agents are equal when
// they are one daemon (address and port) under one name.
type Agent struct{ a fleet.Agent }

var (
	_ starlark.HasAttrs   = (*Agent)(nil)
	_ starlark.Comparable = (*Agent)(nil)
)

// agentFields are the attributes of an agent, in the order dir() lists them.
var agentFields = []string{"name", "namespace", "address", "port", "control", "node", "zone", "region", "network", "ready"}

// String returns what print() shows: <agent NAME CONTROL node=... zone=...>.
func (v *Agent) String() string {
	return fmt.Sprintf("<agent %s %s node=%s zone=%s network=%s>", v.a.Name, v.a.Control(), orDash(v.a.Node), orDash(v.a.Zone), orDash(v.a.Network))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Type is "agent".
func (v *Agent) Type() string { return "agent" }

// Freeze does nothing: an agent cannot change.
func (v *Agent) Freeze() {}

// Truth is true.
func (v *Agent) Truth() starlark.Bool { return starlark.True }

// Hash lets agents be dict keys and set members.
func (v *Agent) Hash() (uint32, error) {
	return starlark.String(v.a.Name + " " + v.a.Control()).Hash()
}

// CompareSameType compares two agents for == and != only.
func (v *Agent) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	w := y.(*Agent)
	same := v.a.Name == w.a.Name && v.a.Address == w.a.Address && v.a.Port == w.a.Port
	switch op {
	case syntax.EQL:
		return same, nil
	case syntax.NEQ:
		return !same, nil
	}
	return false, fmt.Errorf("agents are not ordered: compare a field (a.name < b.name)")
}

// AttrNames lists the agent's fields.
func (v *Agent) AttrNames() []string { return append([]string(nil), agentFields...) }

// Attr returns one field; what the finder could not learn is None.
func (v *Agent) Attr(name string) (starlark.Value, error) {
	a := v.a
	str := func(s string) starlark.Value {
		if s == "" {
			return starlark.None
		}
		return starlark.String(s)
	}
	switch name {
	case "name":
		return starlark.String(a.Name), nil
	case "namespace":
		return str(a.Namespace), nil
	case "address":
		if !a.Address.IsValid() {
			return starlark.None, nil
		}
		return starlark.String(a.Address.String()), nil
	case "port":
		return starlark.MakeInt(int(portOf(a))), nil
	case "control":
		if !a.Address.IsValid() {
			return starlark.None, nil
		}
		return starlark.String(a.Control()), nil
	case "node":
		return str(a.Node), nil
	case "zone":
		return str(a.Zone), nil
	case "region":
		return str(a.Region), nil
	case "network":
		return str(a.Network), nil
	case "ready":
		return starlark.Bool(a.Ready), nil
	}
	return nil, nil
}

// portOf is the agent's control port, the daemon's default when unknown.
func portOf(a fleet.Agent) uint16 {
	if a.Port == 0 {
		return fleet.DefaultPort
	}
	return a.Port
}

// agentList converts a script's list of agents, naming the first element
// that is not one.
func agentList(builtin, param string, v starlark.Value) ([]fleet.Agent, error) {
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("%s: %s must be a list of agents, got %s", builtin, param, v.Type())
	}
	iter := it.Iterate()
	defer iter.Done()
	var out []fleet.Agent
	var x starlark.Value
	for i := 0; iter.Next(&x); i++ {
		a, ok := x.(*Agent)
		if !ok {
			return nil, fmt.Errorf("%s: %s[%d] is %s, not an agent (from fleet.kubernetes(), fleet.dns() or fleet.agent())", builtin, param, i, x.Type())
		}
		out = append(out, a.a)
	}
	return out, nil
}

// agentValues converts agents for a script.
func agentValues(agents []fleet.Agent) *starlark.List {
	vs := make([]starlark.Value, len(agents))
	for i := range agents {
		vs[i] = &Agent{agents[i]}
	}
	return starlark.NewList(vs)
}
