package serveadvice

import (
	"errors"
	"fmt"
	"testing"

	"netscript/engine/agent"
	"netscript/engine/limits"
	"netscript/engine/workload"
)

// TestExplain: a bound's flag follows the bound's own text, even inside a
// wrapped message; a refusal the operator can lift says which flag lifts
// it (a test with no handshake: none does); any other error is its own
// text.
func TestExplain(t *testing.T) {
	budget := &workload.BudgetError{Need: 4, InUse: 0, Max: 3}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&limits.Exceeded{What: "duration", Got: "2h0m0s", Limit: "1h0m0s", Flag: "max-duration"},
			"duration 2h0m0s exceeds this server's limit of 1h0m0s (netscript serve --max-duration)"},
		{fmt.Errorf("tcp_crr: %w", &limits.Exceeded{What: "connection rate", Got: "of more than 10/s", Limit: "10/s", Flag: "max-conn-rate"}),
			"tcp_crr: connection rate of more than 10/s exceeds this server's limit of 10/s (netscript serve --max-conn-rate)"},
		{fmt.Errorf("flows: the test %w", limits.Hit("max-threads", budget)),
			"flows: the test " + budget.Error() + " (netscript serve --max-threads)"},
		{fmt.Errorf("waiting for Start: %w: more", limits.Hit("handshake-timeout", errors.New("nothing for 1s"))),
			"waiting for Start: nothing for 1s (netscript serve --handshake-timeout): more"},
		{&limits.Busy{Msg: "server busy: 1 tests are running, the limit is 1", Bound: "max-tests"},
			"server busy: 1 tests are running, the limit is 1 (netscript serve --max-tests)"},
		{fmt.Errorf("client 198.18.0.1:12866: %w", agent.ErrNotAllowed),
			"client 198.18.0.1:12866: this daemon does not run the client side of tests for scripts (client=): its operator can allow it with netscript serve --allow-client"},
		{fmt.Errorf("client: %w; control=False sends straight to a port with no handshake", agent.ErrOnlyNetscript),
			"client: " + agent.ErrOnlyNetscript.Error() + "; control=False sends straight to a port with no handshake"},
		{errors.New("dial tcp 198.18.0.1:1: connection refused"), "dial tcp 198.18.0.1:1: connection refused"},
	} {
		got := Explain(c.err)
		if got != c.want {
			t.Errorf("Explain(%v)\n got %q\nwant %q", c.err, got, c.want)
		}
		if NamesFlag(got) != (c.err.Error() != got && !errors.Is(c.err, agent.ErrNotAllowed) && !errors.Is(c.err, agent.ErrOnlyNetscript)) {
			t.Errorf("NamesFlag(%q) = %v", got, NamesFlag(got))
		}
	}
}
