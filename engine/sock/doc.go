// Package sock opens and drives the sockets of netscript's data paths.
//
// The calls in this package go straight to the kernel with raw system calls
// on file descriptors opened through golang.org/x/sys/unix. They never enter
// the Go scheduler's system-call protocol, because that protocol costs an
// extra wake-up per blocking call and would show in every figure netscript
// reports. The price is a rule every caller obeys: a goroutine using these
// calls is locked to its OS thread, and no call blocks longer than a tick,
// so the runtime can always stop the world within that bound: either every
// socket the thread blocks on carries receive and send timeouts (SetTick),
// or a Ticker on the thread interrupts its calls once a tick (TCP_CRR's
// loop, which would otherwise set the timeouts on every new connection).
//
// Errors from the data path are plain errno values (no allocation); set-up
// errors are *OpError values that name the operation and the addresses.
package sock
