package client

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"netscript/engine/result"
	"netscript/engine/spec"
)

// NoWorkError is a test that ended without one unit of work: no
// transaction completed (request/response tests), or no byte reached the
// receiver (streams). It names what the two ends counted instead, so the
// user learns why (refused connections, timeouts, strangers the server
// turned away).
type NoWorkError struct {
	Workload string  // "tcp_crr"
	Elapsed  float64 // seconds the test ran
	Account  string  // what happened: "no transaction completed (client: ...; server: ...)"
}

func (e *NoWorkError) Error() string {
	return fmt.Sprintf("%s: %s in %.1f s", e.Workload, e.Account, e.Elapsed)
}

// NoWork returns the NoWorkError of a finished test's result, or nil if
// the test did some work. Run applies it to every test; a result that
// came from elsewhere (a daemon's client side) can be judged the same way.
func NoWork(s *spec.Spec, res *result.Result) *NoWorkError {
	if account := noWorkAccount(s, res); account != "" {
		return &NoWorkError{Workload: s.Workload.Name, Elapsed: res.Elapsed, Account: account}
	}
	return nil
}

// noWorkAccount says what happened in a test that did no work ("" if it
// did some).
func noWorkAccount(s *spec.Spec, res *result.Result) string {
	w := s.Workload
	var what string
	switch {
	case w.RR():
		if res.Transactions > 0 {
			return ""
		}
		what = "no transaction completed"
	case w.ServerSends:
		if res.BytesReceived > 0 {
			return ""
		}
		what = "no byte arrived from the server"
	case res.Remote != nil:
		if res.Remote.BytesReceived > 0 {
			return ""
		}
		what = fmt.Sprintf("no byte reached the server (%d sent)", res.BytesSent)
	default: // no control connection: the receiver's count is unknown
		if res.BytesSent > 0 {
			return ""
		}
		what = "no byte was sent"
	}
	client := errorCounts(res.Errors)
	if res.Discarded > 0 {
		inflight := fmt.Sprintf("%d in flight at the deadline", res.Discarded)
		if client == noErrors {
			client = inflight
		} else {
			client += ", " + inflight
		}
	}
	ends := []string{"client: " + client}
	if res.Remote != nil {
		ends = append(ends, "server: "+errorCounts(res.Remote.Errors))
	}
	return what + " (" + strings.Join(ends, "; ") + ")"
}

// noErrors is errorCounts of no error.
const noErrors = "no error counted"

// errorCounts lists counted errors, most frequent first: "9
// unauthenticated, 2 ECONNRESET", or "no error counted".
func errorCounts(errs map[string]uint64) string {
	keys := slices.Collect(maps.Keys(errs))
	keys = slices.DeleteFunc(keys, func(k string) bool { return errs[k] == 0 })
	if len(keys) == 0 {
		return noErrors
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(errs[b], errs[a]), strings.Compare(a, b))
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", errs[k], k)
	}
	return strings.Join(parts, ", ")
}
