package workloads

import (
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/spec"
)

// TestServerOption: server="netserver" takes netserver's port unless one
// is given; the default is netscript's.
func TestServerOption(t *testing.T) {
	kw := func(pairs ...any) []starlark.Tuple {
		var out []starlark.Tuple
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, starlark.Tuple{starlark.String(pairs[i].(string)), pairs[i+1].(starlark.Value)})
		}
		return out
	}
	host := starlark.String("127.0.0.1")
	for _, c := range []struct {
		kw     []starlark.Tuple
		server string
		port   int
	}{
		{kw("host", host), "", spec.DefaultControlPort},
		{kw("host", host, "server", starlark.String("netscript")), "netscript", spec.DefaultControlPort},
		{kw("host", host, "server", starlark.String("netserver")), "netserver", spec.NetserverPort},
		{kw("host", host, "server", starlark.String("netserver"), "port", starlark.None), "netserver", spec.NetserverPort},
		{kw("host", host, "server", starlark.String("netserver"), "port", starlark.MakeInt(4000)), "netserver", 4000},
	} {
		s, err := parseSpec(spec.TCPRR, nil, c.kw)
		if err != nil || s.Server != c.server || s.Port != c.port {
			t.Errorf("%v: server %q port %d (%v), want %q %d", c.kw, s.Server, s.Port, err, c.server, c.port)
		}
	}
}
