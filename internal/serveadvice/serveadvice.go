// Package serveadvice words the engine's typed errors the way a user of
// `netscript serve` acts on them: a bound the operator sets is named by
// its flag, a refusal the operator can lift says which flag lifts it. The
// daemon (cmd/netscript's serve, the script's embedded server) gives
// Explain to server.Config, so the text it logs and sends to clients
// carries the advice; the engine's own errors name only the bound.
package serveadvice

import (
	"errors"
	"strings"

	"netscript/engine/agent"
	"netscript/engine/limits"
)

// FlagMark begins the advice Explain adds after the text of an error a
// bound caused: "(netscript serve --max-threads)". A client that gets the
// daemon's text over the wire (where the error's type is lost) finds a
// bound by it (NamesFlag).
const FlagMark = "(netscript serve --"

// Explain returns err's text with the daemon's advice: after the text of a
// limits.Bounded, the flag that sets the bound; for a refusal of the
// client side of a test (client=) on a daemon without --allow-client,
// that flag. (A test with no handshake, control=False, is refused by every
// daemon: no flag lifts that, agent.ErrOnlyNetscript.)
func Explain(err error) string {
	text := err.Error()
	switch {
	case errors.Is(err, agent.ErrNotAllowed):
		return strings.Replace(text, agent.ErrNotAllowed.Error(), agent.ErrNotAllowed.Error()+
			" (client=): its operator can allow it with netscript serve --allow-client", 1)
	}
	var b limits.Bounded
	if !errors.As(err, &b) || b.BoundName() == "" {
		return text
	}
	cause := b.Error()
	i := strings.Index(text, cause)
	if i < 0 {
		return text + " " + FlagMark + b.BoundName() + ")"
	}
	i += len(cause)
	return text[:i] + " " + FlagMark + b.BoundName() + ")" + text[i:]
}

// NamesFlag reports whether text (a daemon's refusal, as a client got it)
// names a bound by the serve flag that sets it.
func NamesFlag(text string) bool { return strings.Contains(text, FlagMark) }
