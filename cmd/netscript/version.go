package main

import (
	"fmt"
	"runtime"

	"netscript/engine/sysinfo"
)

// versionCommand is `netscript version`: the release, the commit, the Go
// it was built with and how it was linked.
func versionCommand() int {
	link := "static"
	if sysinfo.Cgo() {
		link = "cgo"
	}
	fmt.Printf("netscript %s (commit %s, %s, %s)\n", version, commit, runtime.Version(), link)
	return exitOK
}
