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
// early. So Start forks on a thread it holds locked for the child's
// life, and then gives the thread back to the runtime rather than ending
// it: other children may have been forked on it before, with Pdeathsig
// set on it (hog runs 25 and 28 saw a netscript client, started from a
// test's goroutine, killed when a childproc thread it had been forked on
// ended).
package childproc
