//go:build linux && !amd64

package sock

import "golang.org/x/sys/unix"

// rawSyscall6 makes one system call without the scheduler's protocol.
//
//go:uintptrescapes
func rawSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1 uintptr, errno unix.Errno) {
	r, _, e := unix.RawSyscall6(trap, a1, a2, a3, a4, a5, a6)
	return r, e
}
