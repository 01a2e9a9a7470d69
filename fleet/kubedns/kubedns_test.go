package kubedns

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"netscript/engine/netns"
	"netscript/internal/kubetest"
)

// svc is the headless Service's name as CoreDNS serves it.
const svc = "netscript-agents.netscript.svc.cluster.local."

// TestFind: against a real DNS server (dnsmasq) serving a headless
// Service's records as CoreDNS does (an SRV record per ready endpoint of
// the port named "control", each target named for its address, and the
// Service's A and AAAA records), the agents are the SRV targets at their
// ports; a Service with no SRV records for the port gives its addresses at
// the default port; a name that does not exist says so.
func TestFind(t *testing.T) {
	ns := netns.New(t, "dns")
	var records []string
	for i, ip := range []string{"198.18.1.2", "198.18.2.2", "198.18.3.2"} {
		host := strings.ReplaceAll(ip, ".", "-") + "." + svc
		records = append(records,
			"--host-record="+strings.TrimSuffix(host, ".")+","+ip,
			fmt.Sprintf("--srv-host=_control._tcp.%s,%s,%d", strings.TrimSuffix(svc, "."), strings.TrimSuffix(host, "."), 12866+i),
			"--host-record="+strings.TrimSuffix(svc, ".")+","+ip)
	}
	records = append(records,
		"--host-record=plain.netscript.svc.cluster.local,198.18.4.2",
		"--host-record=plain.netscript.svc.cluster.local,198.18.4.3",
		"--host-record=plain.netscript.svc.cluster.local,2001:2::4")
	r := kubetest.ResolverIn(ns, kubetest.DNS(t, ns, "cluster.local", records...))
	ctx := context.Background()
	describe := func(q Query) string {
		as, err := Find(ctx, r, q)
		if err != nil {
			return err.Error()
		}
		var s []string
		for _, a := range as {
			s = append(s, fmt.Sprintf("%s=%s/%s/%v", a.Name, a.Control(), a.Network, a.Ready))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		q      Query
		expect string
	}{
		// The SRV records: each agent by its name, at its port.
		{Query{Service: svc}, "198-18-1-2." + svc[:len(svc)-1] + "=198.18.1.2:12866//true " +
			"198-18-2-2." + svc[:len(svc)-1] + "=198.18.2.2:12867//true 198-18-3-2." + svc[:len(svc)-1] + "=198.18.3.2:12868//true"},
		// No SRV records for the port: the Service's addresses.
		{Query{Service: svc, PortName: "metrics"}, "netscript-agents.netscript.svc.cluster.local=198.18.1.2:12866//true " +
			"netscript-agents.netscript.svc.cluster.local=198.18.2.2:12866//true netscript-agents.netscript.svc.cluster.local=198.18.3.2:12866//true"},
		{Query{Service: "plain.netscript.svc.cluster.local."}, "plain.netscript.svc.cluster.local=198.18.4.2:12866//true " +
			"plain.netscript.svc.cluster.local=198.18.4.3:12866//true plain.netscript.svc.cluster.local=[2001:2::4]:12866//true"},
		{Query{Service: "plain.netscript.svc.cluster.local.", Family: "inet6"}, "plain.netscript.svc.cluster.local=[2001:2::4]:12866//true"},
		// (The resolver's error names the server of its configuration,
		// not the one it dialled: the message is matched past that.)
		{Query{Service: "none.netscript.svc.cluster.local."}, "dns: none.netscript.svc.cluster.local.: lookup none.netscript.svc.cluster.local.*: no such host (is it the headless Service of the agents?)"},
		{Query{Service: svc, Family: "ipx"}, `dns: family "ipx": want "inet", "inet6" or none`},
		{Query{}, "dns: no service name (like netscript-agents.netscript.svc.cluster.local.)"},
	} {
		got := describe(c.q)
		head, rest, wild := strings.Cut(c.expect, "*")
		if !wild && got != c.expect || wild && (!strings.HasPrefix(got, head) || !strings.HasSuffix(got, rest)) {
			t.Errorf("%+v:\n got %s\nwant %s", c.q, got, c.expect)
		}
	}
}

func TestResolver(t *testing.T) {
	for _, c := range []struct{ server, expect string }{
		{"", ""},
		{"198.18.0.10", ""},
		{"198.18.0.10:5353", ""},
		{"[2001:2::a]:53", ""},
		{"dns.example", `dns server "dns.example": want an address`},
	} {
		_, err := Resolver(c.server)
		if c.expect == "" && err != nil || c.expect != "" && (err == nil || !strings.Contains(err.Error(), c.expect)) {
			t.Errorf("%q: %v, want %q", c.server, err, c.expect)
		}
	}
}
