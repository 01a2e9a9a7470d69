// Package fleet describes the agents of a fleet (netscript daemons on many
// machines, such as the pods of a DaemonSet) and plans a mesh of tests over
// them: which ordered pairs, how each pair is placed (same node, same zone,
// across zones), and in which rounds they run so that the tests of one
// round run at once without two of them sharing a node.
//
// It knows nothing of Kubernetes or DNS: fleet/kube and fleet/kubedns find
// the agents and return them as [Agent] values; nothing here opens a socket.
package fleet

import (
	"net/netip"
	"strconv"
)

// The networks an agent can be on: a pod's own network namespace, or the
// node's (hostNetwork: true). An agent found without the API (by DNS) has
// neither: its Network is "".
const (
	PodNetwork  = "pod"
	HostNetwork = "host"
)

// DefaultPort is the control port of `netscript serve`.
const DefaultPort = 12866

// Agent is one netscript daemon of a fleet and what a mesh needs to place
// tests on it. Fields the finder could not learn are empty: an agent found
// through DNS has an address and a port but no node, zone or network.
type Agent struct {
	Name      string     // the pod's name, or the DNS name the agent was found under
	Namespace string     // the pod's namespace ("" when found by DNS)
	Address   netip.Addr // where its control port listens: the pod's IP (for hostNetwork pods, the node's)
	Port      uint16     // the control port
	Node      string     // the node it runs on
	Zone      string     // the node's topology.kubernetes.io/zone
	Region    string     // the node's topology.kubernetes.io/region
	Network   string     // PodNetwork, HostNetwork, or "" unknown
	Ready     bool       // the pod is Ready (DNS lists only ready endpoints, so true there)
}

// Control returns the agent's control endpoint as a script's host and
// client options take it: "198.18.0.2:12866", "[2001:2::2]:12866".
func (a Agent) Control() string {
	return netip.AddrPortFrom(a.Address, a.port()).String()
}

func (a Agent) port() uint16 {
	if a.Port == 0 {
		return DefaultPort
	}
	return a.Port
}

// String names the agent for messages and tables: its name and address
// ("netscript-agent-7xk2q 198.18.1.2"), or the address alone.
func (a Agent) String() string {
	if a.Name == "" {
		return a.Control()
	}
	return a.Name + " " + a.Address.String()
}

// The groups a pair of agents falls in, from the nearest to the farthest,
// and "unknown" when the finder could not tell (DNS gives no node or zone).
const (
	SameNode    = "same-node"    // both on one node
	SameZone    = "same-zone"    // different nodes of one zone
	CrossZone   = "cross-zone"   // different zones of one region (or regions unknown)
	CrossRegion = "cross-region" // different regions
	CrossNode   = "cross-node"   // different nodes whose zones are not labelled
	Unknown     = "unknown"      // no node known
)

// Groups lists every group in order of distance, for tables that show
// them in that order.
func Groups() []string {
	return []string{SameNode, SameZone, CrossZone, CrossRegion, CrossNode, Unknown}
}

// Group says how a test from client to server is placed: on one node, in
// one zone, across zones or regions. It reads only what the finder
// learned: without nodes it is Unknown.
func Group(client, server Agent) string {
	switch {
	case client.Node == "" || server.Node == "":
		return Unknown
	case client.Node == server.Node:
		return SameNode
	case client.Zone == "" || server.Zone == "":
		return CrossNode
	case client.Zone == server.Zone:
		return SameZone
	case client.Region != "" && server.Region != "" && client.Region != server.Region:
		return CrossRegion
	default:
		return CrossZone
	}
}

// nodeKey is what two tests at once must not share: the agent's node, or,
// when no node is known, its address (one agent per machine, as far as
// anyone can tell).
func (a Agent) nodeKey() string {
	if a.Node != "" {
		return "node/" + a.Node
	}
	return "addr/" + a.Address.String()
}

// agentKey identifies the agent itself among the fleet.
func (a Agent) agentKey() string {
	return "agent/" + a.Address.String() + "/" + strconv.Itoa(int(a.port()))
}
