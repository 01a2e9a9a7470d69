package limits

// Bounded is an error that one of the operator's bounds caused. BoundName
// names the bound ("max-threads", which serve's flag is named after); the
// engine's text says what was hit, and the daemon's front end adds how to
// raise it.
type Bounded interface {
	error
	BoundName() string
}

// Hit marks err as caused by the bound named bound; its text is err's.
func Hit(bound string, err error) error { return &hit{bound: bound, err: err} }

// hit is what Hit returns.
type hit struct {
	bound string
	err   error
}

func (h *hit) Error() string     { return h.err.Error() }
func (h *hit) Unwrap() error     { return h.err }
func (h *hit) BoundName() string { return h.bound }

// BoundName is the name of the bound exceeded (Flag).
func (e *Exceeded) BoundName() string { return e.Flag }

// BoundName is the name of the bound that refused the test.
func (e *Busy) BoundName() string { return e.Bound }
