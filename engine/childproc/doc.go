// Package childproc starts child processes that cannot outlive the process
// that started them.
//
// A test binary that is killed (Ctrl-C, SIGKILL, its own -test.timeout)
// runs no cleanup, so a netserver or a `netscript serve` it started would
// run on, holding its port, until someone finds it. [Start] has the kernel
// kill such a child (PR_SET_PDEATHSIG, SIGKILL) the moment the process
// that started it ends, however it ends.
//
// The kernel sends that signal when the thread that forked the child ends,
// not the process, and Go ends a thread whenever a goroutine locked to it
// returns: any goroutine, later scheduled on the thread the fork ran on,
// that locks it and returns (the engine's workers do) would kill the child
// early. So Start forks on a thread of its own, locked, that ends only
// after the child has.
package childproc
