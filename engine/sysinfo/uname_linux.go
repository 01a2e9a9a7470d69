package sysinfo

import "golang.org/x/sys/unix"

// uname returns the kernel's release and build strings.
func uname() (release, version string) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", ""
	}
	return unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Version[:])
}
