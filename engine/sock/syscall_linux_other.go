//go:build linux && !amd64

package sock

import "golang.org/x/sys/unix"

// rawSyscall6 makes one system call without the scheduler's protocol.
//
//go:uintptrescapes
func rawSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, errno uintptr) {
	r, _, e := unix.RawSyscall6(trap, a1, a2, a3, a4, a5, a6)
	return r, uintptr(e)
}
