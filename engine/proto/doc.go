// Package proto is netscript's control protocol: the conversation between a
// client and `netscript serve` that sets a test up, starts it, stops it and
// brings the server's counts back.
//
// A control connection opens with a fixed preamble in each direction: the
// eight bytes "NETSCRPT" and a 16-bit protocol version. After it, both sides
// exchange frames: a 32-bit big-endian length, a one-byte message type, and
// a JSON payload of at most the negotiated maximum size. One control
// connection carries exactly one test:
//
//	client                      server
//	Setup (parameters)   ──▶
//	                     ◀──   Ready (data port, granted buffers)
//	(data connections are made)
//	Start                ──▶
//	                     ◀──   Started
//	(the measured interval)
//	Stop                 ──▶
//	                     ◀──   Results (server counts)
//
// Either side may send Error instead of its next message; the connection
// then ends. Every decoder here treats its input as hostile: sizes are
// bounded before anything is allocated and malformed input is an error.
package proto
