//go:build !linux

package sock

// Name is a UNIX domain socket's name; netscript reads them on Linux only.
func (a *Addr) Name() string { return "" }
