// Package proto is netscript's control protocol: the conversation between a
// client and `netscript serve` that sets a test up, starts it, stops it and
// brings the server's counts back.
//
// A control connection opens with a fixed preamble in each direction: the
// eight bytes "NETSCRPT" and a 16-bit protocol version. After it, both sides
// exchange frames: a 32-bit big-endian length, a one-byte message type, and
// a payload of at most the negotiated maximum size. The client speaks
// first with a Hello, the first message of a Noise handshake (NN, or
// NNpsk0 with a key of the token: auth.go), and the server answers with
// a Welcome; from then on every frame is sealed with the keys they agreed
// (sealed.go), its type and JSON payload inside. One control connection
// then carries exactly one test:
//
//	client                      server
//	Hello (mode, e)      ──▶
//	                     ◀──   Welcome (e, ee)
//	Setup (parameters)   ──▶                 (sealed from here on)
//	                     ◀──   Ready (data port, granted buffers)
//	(every flow greets its endpoint: auth.ConnHello, auth.Greeting)
//	Start                ──▶
//	                     ◀──   Started
//	(the measured interval;
//	 Heartbeat           ◀─▶   Heartbeat    if Setup asked: live.go)
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
// then ends. An Error before the handshake has agreed keys (a refusal,
// another version, a busy server) is in clear. Every decoder here treats its input as hostile: sizes are
// bounded before anything is allocated and malformed input is an error.
//
// # The wire schema
//
// The message type numbers, the JSON names and types of every message's
// fields (the types of this package and what they hold, sysinfo.Info in
// Ready included) and the codes carried in them are the version-3 wire
// schema. Decode is strict: a field the message does not have is an
// error naming the message and the field, not silently dropped, so a peer
// never believes it asked for something that was ignored. (Keys match
// case-insensitively, as encoding/json matches them; senders write them as
// declared.) testdata/v3 holds the messages the release before this schema
// was written down sent; the tests decode each of them and encode it back
// to the same bytes. ClientResult.Result, a result.Result's JSON, is
// decoded as strictly by its reader (engine/agent), so a field added to
// result.Result is a change of the schema like any other.
//
// Version 4 changed only what comes before Setup (the handshake) and how
// frames are carried (sealed); the messages are version 3's schema.
//
// Changing the schema is a protocol version change: adding, renaming or
// removing a field, changing its type, unit or meaning, or a code's
// meaning. Bump Version, say in its comment what changed and why, and
// record the new version's messages in testdata/v<N> as testdata/v3 was
// recorded. New keys of a map field (Results.Errors, sysinfo.Info.Sysctls)
// are not a change, nor is a new workload code: a peer that does not know
// one refuses it by name.
//
// # Optional extensions
//
// An optional field that a side sends only to ask for something new, and
// whose absence means the conversation of before, is an extension rather
// than a new version: a peer of the release before refuses it by name
// (strict decoding), and the asking side, which recognises that refusal,
// asks again without it. Heartbeats are one (live.go): a client sets
// Setup.HeartbeatNs; a server that accepts that Setup sends Heartbeat
// (type 13) every that period from Started until Stop arrives, and the
// client sends its own until it sends Stop; each ends the test when the
// other is silent too long. A v3 server answers such a Setup with an
// Error (HeartbeatRefused), and the client runs the test on a new control
// connection without heartbeats; a v3 client never asks, so a new server
// never sends it a Heartbeat. testdata/live holds these messages; the
// version stays 3. TestSpec.LivenessNs (the liveness option) is omitted
// when 0, so a test that leaves the option alone reads as before, and so
// is TestSpec.Arrival (the open model's schedule) for a closed-model test;
// a daemon of a release before it refuses a test that carries it, naming
// the field.
//
// RunClient carries a test as a TestSpec: proto's own copy of spec.Spec,
// field for field, under the names and in the order the previous release's
// json.Marshal(spec.Spec) used, so it encodes to the same bytes. Its codes
// are frozen here, not derived from spec's Go identifiers: Workload 1
// TCP_RR, 2 TCP_CRR, 3 UDP_RR, 4 TCP_STREAM, 5 TCP_MAERTS, 6 UDP_STREAM
// (further workloads may take further codes; which codes are known is for
// the conversion to judge, not this package); Family 0 auto, 1 inet, 2
// inet6; durations are int64 nanoseconds; CPU and RemoteCPU are null or
// a CPU number. TestSpec.Check refuses what no version-3 peer can mean.
// testspec_convert.go is the one file that knows spec.Spec (TestSpecFrom,
// TestSpec.ToSpec); a field added to spec.Spec fails a test there until
// the wire carries it, under a new Version.
package proto
