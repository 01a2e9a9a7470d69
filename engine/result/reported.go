package result

// Reported reports whether the result's field whose json name is name
// holds a figure: local_address and remote_address are "" when not known
// (a tcp_crr test without local, whose every connection has a source
// address of the kernel's choosing), which scripts read as None and a
// table shows as "-", not as a blank.
func (r Result) Reported(name string) bool {
	return addressKnown(name, r.LocalAddress, r.RemoteAddress)
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
