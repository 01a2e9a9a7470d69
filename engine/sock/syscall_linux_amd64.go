package sock

// rawSyscall6 makes one system call directly (assembly, amd64).
//
//go:noescape
//go:uintptrescapes
func rawSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, errno uintptr)
