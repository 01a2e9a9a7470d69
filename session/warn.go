package session

import (
	"regexp"
	"sync"
)

// digits are the counts in a warning, which differ from test to test.
var digits = regexp.MustCompile(`[0-9]+`)

// FirstWarning reports whether the warning of this cause is new to the
// session, and remembers it: a warning every test of a loop would repeat
// is written once. Causes that differ only in their counts are one.
func (s *Session) FirstWarning(cause string) bool { return s.warned.first(cause) }

// warnedSet remembers the warnings a session was given, by cause.
type warnedSet struct {
	mu   sync.Mutex
	seen map[string]bool
}

// first reports whether the warning text is new: texts that differ only
// in their counts are one cause.
func (w *warnedSet) first(text string) bool {
	key := digits.ReplaceAllString(text, "#")
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[key] {
		return false
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[key] = true
	return true
}
