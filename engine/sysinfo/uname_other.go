//go:build !linux

package sysinfo

// uname is not implemented outside Linux.
func uname() (release, version string) { return "", "" }
