// Package fleet is the module of fleet: finding the netscript daemons of a
// fleet (the agents of a Kubernetes DaemonSet, through the API or their
// headless Service's DNS records, or daemons a script names), probing
// which answer, and planning a mesh of tests over them in rounds. The
// finding and the planning are netscript/fleet's; this module makes their
// values for scripts.
package fleet

import (
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"netscript/starlib/module"
)

// Module is the fleet module, with its help.
var Module = &module.Module{
	Name: "fleet",
	Members: starlark.StringDict{
		"fleet": &starlarkstruct.Module{
			Name: "fleet",
			Members: starlark.StringDict{
				"kubernetes": starlark.NewBuiltin("fleet.kubernetes", kubernetesBuiltin),
				"dns":        starlark.NewBuiltin("fleet.dns", dnsBuiltin),
				"service":    starlark.NewBuiltin("fleet.service", serviceBuiltin),
				"agent":      starlark.NewBuiltin("fleet.agent", agentBuiltin),
				"probe":      starlark.NewBuiltin("fleet.probe", probeBuiltin),
				"group":      starlark.NewBuiltin("fleet.group", groupBuiltin),
				"plan":       starlark.NewBuiltin("fleet.plan", planBuiltin),
			},
		},
	},
	Help: Doc,
	Index: map[string]string{
		"fleet": "agents found in Kubernetes or DNS; mesh plans over them",
	},
}

// Doc holds the help of fleet and its members, keyed by the name a script
// uses ("fleet.plan"); a member is found by its bare name too.
var Doc = func() map[string]string {
	d := map[string]string{"fleet": fleetDoc}
	for k, v := range memberDocs {
		d[k] = v
		d[strings.TrimPrefix(k, "fleet.")] = v
	}
	return d
}()

const fleetDoc = `fleet (module)

Finds the netscript daemons of a fleet and plans a mesh of tests over
them (docs/kubernetes.md; scripts/kube_mesh.star runs one):
  fleet.kubernetes(...)      the agents' pods, through the Kubernetes API
  fleet.dns(service, ...)    the agents behind a headless Service's DNS
  fleet.agent(address, ...)  an agent a script names itself
  fleet.service(name, ...)   a ClusterIP Service's address, for host=
  fleet.probe(agents)        which agents' control ports answer
  fleet.group(c, s)          same-node, same-zone, cross-zone, ...
  fleet.plan(agents, ...)    the pairs in rounds that can run at once
An agent has name, namespace, address, port, control (for host= and
client=), node, zone, region, network ("pod", "host") and ready; what the
finder could not learn is None. The API server, the DNS server and each
agent probed are hosts the person allows with --allow-net, as a test's.
  agents = fleet.kubernetes()
  for rnd in fleet.plan(agents).rounds:
      parallel([lambda p=p: tcp_rr(host=p.server.control,
                client=p.client.control) for p in rnd])`

var memberDocs = map[string]string{
	"fleet.kubernetes": `fleet.kubernetes(namespace=None, selector=None, ...) -> list

Returns the agents of a cluster: the pods the label selector matches
(app.kubernetes.io/name=netscript-agent) in namespace (netscript), in
the order of their names, each with its pod IP (a host-network pod's is its
node's), the container port named control (else 12866), its node and the
node's zone and region (topology.kubernetes.io labels). Inside a pod it
uses the pod's service account; else kubeconfig= (read as load() reads,
with no exec plugin) or $KUBECONFIG or ~/.kube/config, with context=.
family= "inet" or "inet6" picks a dual-stack pod's address; port=
overrides the control port. A pod not Ready has ready False; a Pending
one has address None.
  agents = fleet.kubernetes(namespace="netscript")`,
	"fleet.dns": `fleet.dns(service, server=None, family=None, port_name="control") -> list

Returns the agents behind a headless Service from its DNS records, where
the API may not be read: the SRV records of its port port_name (each
target and port), else its A and AAAA records at port 12866. DNS lists
ready endpoints only and tells no node or zone: those fields are None and
every pair is in the group "unknown". server= asks that DNS server
("10.96.0.10") rather than the system's.
  agents = fleet.dns("netscript-agents.netscript.svc.cluster.local.")`,
	"fleet.service": `fleet.service(name, namespace=None, kubeconfig=None, context=None) -> str

Returns a ClusterIP Service's address and its port named control (else
its first) as "198.19.0.10:12866", for host= of a test that goes through
the Service as a client of the cluster would.
  r = tcp_rr(host=fleet.service("netscript-agents-vip"), data_port=12867)`,
	"fleet.agent": `fleet.agent(address, port=12866, name=None, node=None, zone=None, ...) -> agent

Makes an agent of a daemon the script knows the address of (machines
outside Kubernetes, or a list kept by hand): region= and network= ("pod"
or "host") as the finders give them; the name is the control address if
none is given.
  hosts = [fleet.agent(a, zone=z) for a, z in [("198.18.0.2", "a"),
                                               ("198.18.1.2", "b")]]`,
	"fleet.probe": `fleet.probe(agents, timeout=5) -> list

Tries each agent's control port with a connection, 64 at a time, each
within timeout seconds, and returns for each agent in order None if it
answered, or a string saying why not (refused, timed out, not Ready, no
address). A dead agent is then a failed cell rather than the end of a run.
  problems = fleet.probe(agents)
  up = [a for a, p in zip(agents, problems) if p == None]`,
	"fleet.group": `fleet.group(client, server) -> str

Returns how a test from client to server is placed: "same-node",
"same-zone", "cross-zone", "cross-region", "cross-node" (zones not
labelled) or "unknown" (no node known, as from DNS).
  print(fleet.group(agents[0], agents[1]))`,
	"fleet.plan": `fleet.plan(agents, sample=0, per_node=1, per_round=0, ...) -> plan

Plans a mesh over agents: every ordered pair (sample=0), or sample servers
per agent, nearest groups first, drawn by seed= (1); groups= keeps pairs of
those groups only. The pairs come in rounds where no agent has two tests,
no node more than per_node, and no round more than per_round (0: no cap),
so a round's tests can start at once. A plan has agents, rounds (lists of
pairs, each with client, server and group) and pairs (how many).
  for rnd in fleet.plan(agents, sample=4).rounds:
      rs = parallel([lambda p=p: tcp_rr(host=p.server.control,
                     client=p.client.control) for p in rnd])`,
}
