package fleet

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"netscript/fleet"
	"netscript/fleet/kube"
	"netscript/fleet/kubedns"
	"netscript/starlib/thread"
)

// findTimeout bounds one discovery: a list of pods and one of nodes, or a
// few DNS queries.
const findTimeout = 60 * time.Second

// kubernetesBuiltin: fleet.kubernetes(namespace=None, selector=None, ...).
func kubernetesBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var namespace, selector, kubeconfig, kubeContext, family string
	port := 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "namespace?", &namespace, "selector?", &selector,
		"kubeconfig?", &kubeconfig, "context?", &kubeContext, "family?", &family, "port?", &port); err != nil {
		return nil, err
	}
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("%s: port %d: want 1 to 65535, or 0 for the pods' port named control", b.Name(), port)
	}
	c, err := kube.Connect(kubeSource(th, b, kubeconfig, kubeContext))
	if err != nil {
		return nil, wrap(b, err)
	}
	ctx, cancel := context.WithTimeout(thread.Context(th), findTimeout)
	defer cancel()
	agents, err := c.Find(ctx, kube.Query{Namespace: namespace, Selector: selector, Family: family, Port: uint16(port)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return agentValues(agents), nil
}

// serviceBuiltin: fleet.service(name, namespace=None, ...) returns a
// ClusterIP Service's address and control port.
func serviceBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, namespace, kubeconfig, kubeContext string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "namespace?", &namespace,
		"kubeconfig?", &kubeconfig, "context?", &kubeContext); err != nil {
		return nil, err
	}
	c, err := kube.Connect(kubeSource(th, b, kubeconfig, kubeContext))
	if err != nil {
		return nil, wrap(b, err)
	}
	ctx, cancel := context.WithTimeout(thread.Context(th), findTimeout)
	defer cancel()
	ap, err := c.Service(ctx, namespace, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(ap.String()), nil
}

// dnsBuiltin: fleet.dns(service, server=None, family=None, port_name="control").
func dnsBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var service, server, family, portName string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "service", &service, "server?", &server,
		"family?", &family, "port_name?", &portName); err != nil {
		return nil, err
	}
	r, err := kubedns.Resolver(server)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	// The DNS server named is the host reached; with the system's resolver
	// the name is, as a test's host name is only looked up once allowed
	// (the query leaves the machine toward whoever serves the name).
	host, what := server, "ask the DNS server at"
	if host == "" {
		host, what = service, "look up the agents' DNS records of"
	}
	if err := reach(th, b, what)(host); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(thread.Context(th), findTimeout)
	defer cancel()
	agents, err := kubedns.Find(ctx, r, kubedns.Query{Service: service, PortName: portName, Family: family})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return agentValues(agents), nil
}

// agentBuiltin: fleet.agent(address, port=12866, name=None, ...) makes an
// agent of a daemon a script knows the address of.
func agentBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var address, name, node, zone, region, network string
	port := int(fleet.DefaultPort)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "address", &address, "port?", &port, "name?", &name,
		"node?", &node, "zone?", &zone, "region?", &region, "network?", &network); err != nil {
		return nil, err
	}
	addr, err := netip.ParseAddr(address)
	if err != nil {
		return nil, fmt.Errorf("%s: address %q: want an IP address (198.18.0.2, 2001:2::2)", b.Name(), address)
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("%s: port %d: want 1 to 65535", b.Name(), port)
	}
	if network != "" && network != fleet.PodNetwork && network != fleet.HostNetwork {
		return nil, fmt.Errorf("%s: network %q: want %q, %q or None", b.Name(), network, fleet.PodNetwork, fleet.HostNetwork)
	}
	a := fleet.Agent{Name: name, Address: addr.Unmap(), Port: uint16(port), Node: node, Zone: zone, Region: region, Network: network, Ready: true}
	if a.Name == "" {
		a.Name = a.Control()
	}
	return &Agent{a}, nil
}

// probeBuiltin: fleet.probe(agents, timeout=5) -> [None or str].
func probeBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var av starlark.Value
	timeout := starlark.Value(starlark.MakeInt(5))
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "agents", &av, "timeout?", &timeout); err != nil {
		return nil, err
	}
	agents, err := agentList(b.Name(), "agents", av)
	if err != nil {
		return nil, err
	}
	secs, ok := starlark.AsFloat(timeout)
	if !ok || secs <= 0 || secs > 3600 {
		return nil, fmt.Errorf("%s: timeout %s: want seconds above 0, at most 3600", b.Name(), timeout)
	}
	// Every agent probed is a host reached: all are allowed (or asked
	// about) before the first connection.
	check := reach(th, b, "connect to the control port of the agent at")
	for _, a := range agents {
		if a.Address.IsValid() && a.Ready {
			if err := check(a.Control()); err != nil {
				return nil, err
			}
		}
	}
	errs := fleet.Probe(thread.Context(th), agents, time.Duration(secs*float64(time.Second)))
	out := make([]starlark.Value, len(errs))
	for i, e := range errs {
		out[i] = starlark.None
		if e != nil {
			out[i] = starlark.String(e.Error())
		}
	}
	return starlark.NewList(out), nil
}

// groupBuiltin: fleet.group(client, server) -> str.
func groupBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var c, s *Agent
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "client", &c, "server", &s); err != nil {
		return nil, err
	}
	return starlark.String(fleet.Group(c.a, s.a)), nil
}

// planBuiltin: fleet.plan(agents, sample=0, per_node=1, per_round=0, seed=1, groups=None).
func planBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var av starlark.Value
	var gv starlark.Value = starlark.None
	sample, perNode, perRound, seed := 0, 1, 0, 1
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "agents", &av, "sample?", &sample, "per_node?", &perNode,
		"per_round?", &perRound, "seed?", &seed, "groups?", &gv); err != nil {
		return nil, err
	}
	agents, err := agentList(b.Name(), "agents", av)
	if err != nil {
		return nil, err
	}
	var groups []string
	if gv != starlark.None {
		it, ok := gv.(starlark.Iterable)
		if !ok {
			return nil, fmt.Errorf("%s: groups must be a list of group names, got %s", b.Name(), gv.Type())
		}
		iter := it.Iterate()
		defer iter.Done()
		var x starlark.Value
		for iter.Next(&x) {
			s, ok := starlark.AsString(x)
			if !ok {
				return nil, fmt.Errorf("%s: groups holds %s, not a group name", b.Name(), x.Type())
			}
			groups = append(groups, s)
		}
	}
	if seed < 0 {
		return nil, fmt.Errorf("%s: seed %d: want 0 or more", b.Name(), seed)
	}
	plan, err := fleet.NewPlan(agents, fleet.Options{Sample: sample, PerNode: perNode, PerRound: perRound, Seed: uint64(seed), Groups: groups})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return planValue(plan), nil
}

// planValue is a plan for a script: its agents, its rounds of pairs (each
// pair's client, server and group) and how many pairs.
func planValue(p *fleet.Plan) starlark.Value {
	agents := make([]starlark.Value, len(p.Agents))
	for i := range p.Agents {
		agents[i] = &Agent{p.Agents[i]}
	}
	rounds := make([]starlark.Value, len(p.Rounds))
	for i, r := range p.Rounds {
		pairs := make([]starlark.Value, len(r))
		for j, pr := range r {
			pairs[j] = starlarkstruct.FromStringDict(starlark.String("pair"), starlark.StringDict{
				"client": agents[pr.Client],
				"server": agents[pr.Server],
				"group":  starlark.String(pr.Group()),
			})
		}
		rounds[i] = starlark.NewList(pairs)
	}
	v := starlarkstruct.FromStringDict(starlark.String("plan"), starlark.StringDict{
		"agents": starlark.NewList(agents),
		"rounds": starlark.NewList(rounds),
		"pairs":  starlark.MakeInt(p.Pairs),
	})
	v.Freeze()
	return v
}
