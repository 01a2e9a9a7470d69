package repl

import (
	"errors"

	"netscript/engine/client"
	"netscript/starlib/values"
)

// keepPartial binds to _ what a statement stopped by err had finished: a
// confidence() loop's finished iterations (a value marked partial), or
// the result a test measured until it was cut short. It returns lead
// followed by what was kept and where, or lead alone (nothing kept).
func (s *console) keepPartial(lead string, err error) string {
	sep := "; "
	if lead == "" {
		sep = ""
	}
	var pe *values.PartialError
	if errors.As(err, &pe) && pe.Value != nil {
		s.globals["_"] = pe.Value
		return lead + sep + "kept in _: " + pe.What + ": " + pe.Value.String()
	}
	var te *client.TestError
	if errors.As(err, &te) && te.Partial != nil {
		s.globals["_"] = values.NewResult(te.Partial)
		return lead + sep + "measured before that: " + values.Summary(te.Partial) + " (kept in _)"
	}
	return lead
}
