package sock

import "golang.org/x/sys/unix"

// rawSyscall6 makes one system call directly (assembly, amd64), without
// the scheduler's system-call protocol. Being implemented in assembly, it
// keeps any object whose address is converted to uintptr in its argument
// list alive and in place until it returns, without making it escape.
//
//go:noescape
func rawSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1 uintptr, errno unix.Errno)
