// Package kubedns finds the agents of a fleet through the DNS records of
// their headless Service, where a script may not read the Kubernetes API:
// the SRV records of the Service's control port name each ready agent
// and its port, and the Service's own A and AAAA records list their
// addresses. DNS says nothing of nodes, zones or networks: the agents it
// finds have none, and a mesh over them is one group, "unknown".
package kubedns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"netscript/fleet"
)

// DefaultPortName is the name of the agents' control port in the headless
// Service of deploy/kubernetes; its SRV records are
// _control._tcp.SERVICE.NAMESPACE.svc.DOMAIN.
const DefaultPortName = "control"

// Query names the headless Service.
type Query struct {
	// Service is the Service's DNS name: fully qualified with a final dot
	// ("netscript-agents.netscript.svc.cluster.local."), or relative
	// ("netscript-agents.netscript"), completed by the resolver's search
	// list as inside a pod.
	Service string
	// PortName is the Service's port whose SRV records to read; ""
	// is DefaultPortName.
	PortName string
	// Family keeps addresses of one family: "inet", "inet6", or "" both.
	Family string
}

// Resolver returns a resolver that asks the DNS server at server
// ("10.96.0.10:53"; a bare address takes port 53), or the system's
// resolver (the pod's, inside a cluster) for "".
func Resolver(server string) (*net.Resolver, error) {
	if server == "" {
		return net.DefaultResolver, nil
	}
	ap, err := netip.ParseAddrPort(server)
	if err != nil {
		a, aerr := netip.ParseAddr(server)
		if aerr != nil {
			return nil, fmt.Errorf("dns server %q: want an address, with a port or not (10.96.0.10, [fd00::a]:53)", server)
		}
		ap = netip.AddrPortFrom(a, 53)
	}
	addr := ap.String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}, nil
}

// Find lists the agents behind the Service: from its SRV records (each
// target's name, resolved, with the record's port), or, when it has none
// for the port, from its A and AAAA records with the daemon's default
// port. Agents come in the order of their addresses; each is Ready, as
// DNS lists only ready endpoints.
func Find(ctx context.Context, r *net.Resolver, q Query) ([]fleet.Agent, error) {
	if q.Service == "" {
		return nil, errors.New("dns: no service name (like netscript-agents.netscript.svc.cluster.local.)")
	}
	if q.PortName == "" {
		q.PortName = DefaultPortName
	}
	if q.Family != "" && q.Family != "inet" && q.Family != "inet6" {
		return nil, fmt.Errorf("dns: family %q: want \"inet\", \"inet6\" or none", q.Family)
	}
	keep := func(a netip.Addr) bool {
		return q.Family == "" || (q.Family == "inet") == a.Is4()
	}
	var agents []fleet.Agent
	_, srvs, err := r.LookupSRV(ctx, q.PortName, "tcp", q.Service)
	if err != nil && !notFound(err) {
		return nil, fmt.Errorf("dns: SRV _%s._tcp.%s: %w", q.PortName, q.Service, err)
	}
	for _, s := range srvs {
		addrs, err := r.LookupNetIP(ctx, "ip", s.Target)
		if err != nil {
			return nil, fmt.Errorf("dns: %s (SRV target of %s): %w", s.Target, q.Service, err)
		}
		for _, a := range addrs {
			if a = a.Unmap(); keep(a) {
				agents = append(agents, fleet.Agent{Name: strings.TrimSuffix(s.Target, "."), Address: a, Port: s.Port, Ready: true})
			}
		}
	}
	if len(srvs) == 0 {
		addrs, err := r.LookupNetIP(ctx, "ip", q.Service)
		if err != nil {
			return nil, fmt.Errorf("dns: %s: %w (is it the headless Service of the agents?)", q.Service, err)
		}
		for _, a := range addrs {
			if a = a.Unmap(); keep(a) {
				agents = append(agents, fleet.Agent{Name: strings.TrimSuffix(q.Service, "."), Address: a, Port: fleet.DefaultPort, Ready: true})
			}
		}
	}
	slices.SortFunc(agents, func(a, b fleet.Agent) int {
		if c := a.Address.Compare(b.Address); c != 0 {
			return c
		}
		return int(a.Port) - int(b.Port)
	})
	agents = slices.CompactFunc(agents, func(a, b fleet.Agent) bool { return a.Address == b.Address && a.Port == b.Port })
	if len(agents) == 0 {
		return nil, fmt.Errorf("dns: %s lists no agents of family %s", q.Service, q.Family)
	}
	return agents, nil
}

// notFound says whether err is a name or record that does not exist.
func notFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}
