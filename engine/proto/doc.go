// Package proto is netscript's control protocol: the conversation between a
// client and `netscript serve` that sets a test up, starts it, stops it and
// brings the server's counts back.
//
// A control connection opens with a fixed preamble in each direction: the
// eight bytes "NETSCRPT" and a 16-bit protocol version. After it, both sides
// exchange frames: a 32-bit big-endian length, a one-byte message type, and
// a JSON payload of at most the negotiated maximum size. The server speaks
// first with a Challenge; a server that holds a token puts a nonce in it,
// and the two ends prove to each other that they hold the token without
// sending it (auth.go; an open server's Challenge is empty and the client
// goes straight on). One control connection then carries exactly one test:
//
//	client                      server
//	                     ◀──   Challenge (nonce, if a token is set)
//	Auth (nonce, proof)  ──▶                 (only with a token)
//	                     ◀──   Proof         (only with a token)
//	Setup (parameters)   ──▶
//	                     ◀──   Ready (data port, granted buffers)
//	(data connections are made)
//	Start                ──▶
//	                     ◀──   Started
//	(the measured interval)
//	Stop                 ──▶
//	                     ◀──   Results (server counts)
//
// How the data ends before Stop depends on the workload, as in netperf:
// TCP_RR and TCP_STREAM half-close the data connection and read until the
// server closes its side (so the server has counted everything the client
// sent); UDP_STREAM sends zero-length end-of-test datagrams, and after
// Stop the server keeps counting until the socket has been quiet for a
// tick; TCP_MAERTS sends Stop first, the server stops sending and closes,
// and the client reads the rest apart from the measured interval.
//
// Ready carries the server's net.ipv4.tcp_fastopen, so a client can tell
// a Fast Open test that could not work; Results carry the server's CPU
// (with Setup.CPUUtil) and the CPUs its data-path thread ran on.
//
// Either side may send Error instead of its next message; the connection
// then ends. Every decoder here treats its input as hostile: sizes are
// bounded before anything is allocated and malformed input is an error.
package proto
