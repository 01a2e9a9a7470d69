package result

// Reported reports whether the result's field whose json name is name
// holds a figure: local_address and remote_address are "" when not known
// (a tcp_crr test without local, whose every connection has a source
// address of the kernel's choosing), which scripts read as None and a
// table shows as "-", not as a blank.
//
// A failed result (Error set) reports only what says which test it was
// and why it failed (test, brand, units, config, error, notes, start, the
// addresses it knew): its figures read as None, never as a zero. A result
// that did not fail has no error: error reads as None.
func (r Result) Reported(name string) bool {
	if name == "error" {
		return r.Error != ""
	}
	if r.Error != "" && !identityField[name] {
		return false
	}
	return addressKnown(name, r.LocalAddress, r.RemoteAddress)
}

// identityField names the fields of a failed result that still hold
// what it was: the rest are figures it did not measure.
var identityField = map[string]bool{"test": true, "brand": true, "units": true, "config": true,
	"notes": true, "start": true, "local_address": true, "remote_address": true, "errors": true}

// DerivedNames lists the fields of a result computed from the others:
// ok, False for a failed result.
func (r Result) DerivedNames() []string { return []string{"ok"} }

// Derived returns the derived field called name (DerivedNames).
func (r Result) Derived(name string) (any, bool) {
	if name == "ok" {
		return r.Error == "", true
	}
	return nil, false
}

// Reported reports whether the flow's field whose json name is name holds
// a figure, as Result.Reported.
func (f Flow) Reported(name string) bool {
	return addressKnown(name, f.LocalAddress, f.RemoteAddress)
}

// addressKnown is false for an address field that is "".
func addressKnown(name, local, remote string) bool {
	switch name {
	case "local_address":
		return local != ""
	case "remote_address":
		return remote != ""
	}
	return true
}
