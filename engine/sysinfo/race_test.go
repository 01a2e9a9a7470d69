//go:build race

package sysinfo

import "testing"

// TestCgoUnderRace: the race detector needs cgo, so a -race test binary
// was built with it and Cgo must say so. (That a CGO_ENABLED=0 build says
// "static" is checked on the binary by cmd/netscript's TestVersion.)
func TestCgoUnderRace(t *testing.T) {
	if !Cgo() {
		t.Error("Cgo() = false in a -race build, which cannot be built without cgo")
	}
	if !Collect("1", "c").Cgo {
		t.Error("Collect: cgo = false in a -race build")
	}
}
