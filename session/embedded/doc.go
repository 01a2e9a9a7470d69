// Package embedded runs the loopback server a script uses when a workload
// names no host: the netscript binary itself as a separate process
// (`netscript serve --embedded-fd 3`), so its figures are those of a
// separately started server. It owns both halves of their conversation on
// the descriptor they share: Start, on the script's side, sends the token
// and reads the addresses the server listens on; Serve, on the server's
// side, reads the token and reports the addresses.
//
// The session (session.Session.Embedded) starts the process on first use;
// cmd/netscript's serve command runs Serve.
package embedded
