// Package netns is a test harness that turns one Linux machine into several
// network hosts. Each host is a network namespace; veth pairs join them.
// netscript's tests use it to run a server and a client in different
// namespaces, to set sysctls in one namespace only (net.ipv4.tcp_fastopen=3
// on the server side, say, without touching the machine's own settings), to
// give a client namespace many source addresses, and to read each namespace's
// own SNMP counters so that a test can check what the kernel really did.
//
// # Using it
//
//	srv := netns.New(t, "server")
//	cli := netns.New(t, "client")
//	v := netns.Link(t, cli, srv, "198.18.0.1/24", "198.18.0.2/24")
//	srv.Sysctl(t, "net.ipv4.tcp_fastopen", "3")
//	var ln net.Listener
//	err := srv.Do(func() (err error) { ln, err = net.Listen("tcp", "198.18.0.2:0"); return })
//	daemon := srv.Start(t, "some-server", "-p", "12865")
//
// Every call takes the test's [testing.TB], fails the test with a message
// that says what was being done (and quotes the ip command's error output)
// when something goes wrong, and registers with t.Cleanup whatever is needed
// to undo its work. Cleanup runs when the test returns, calls t.Fatal or
// panics: processes started in a namespace are killed and waited for first,
// then veths and namespaces are deleted. [New] and [Available] skip the test
// (rather than fail it) when the machine cannot make namespaces: not root, no
// iproute2, or no CAP_SYS_ADMIN.
//
// # Address rules
//
// Tests must never send traffic anywhere real. Every address given to
// [Link], [NS.AddAddr] and [NS.AddRoute] must lie inside the benchmarking
// ranges 198.18.0.0/15 (RFC 2544) and 2001:2::/48 (RFC 5180), with a prefix
// no wider than the range itself; anything else fails the test. veths are
// created directly inside their namespaces, so no test interface ever exists
// in the machine's own namespace, and the namespaces have no route to
// anywhere but each other.
//
// # Names
//
// A namespace made by New(t, "client") is called ns-<pid>-client (with a
// -2, -3, ... suffix if that name is taken), where pid is the test process's
// id. Two test binaries running at once therefore never collide, and [New]
// first deletes namespaces left by test processes that no longer exist
// ([SweepStale]). [Leftovers] lists the namespaces this process still has,
// so a test can assert that nothing leaked. The devices of a namespace are
// called veth0, veth1, ... in the order [Link] makes them.
//
// # Go code inside a namespace
//
// [NS.Do] runs a function on an OS thread that has entered the namespace;
// sockets it opens belong to that namespace for their whole life, so a test
// can open a listener inside the server namespace and serve it from any
// goroutine. [NS.Command], [NS.Run] and [NS.Start] run programs inside it.
package netns
