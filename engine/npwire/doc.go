// Package npwire is netperf 2.7's control protocol on the wire: the fixed
// 656-byte messages netperf and netserver exchange on the control
// connection, the request and response codes, and the layouts of the
// requests, responses and results that netscript speaks (the omni test,
// which carries TCP_STREAM, TCP_MAERTS, TCP_RR, TCP_CRR, UDP_STREAM and
// UDP_RR, and the classic TCP_CC test).
//
// Every message is a 32-bit type, a 32-bit second word (in a request the CPU
// netserver is to bind its test to, from netperf -T; in a response the
// server's errno) and 162 32-bit words of test-specific data. The sender
// puts the first words of each layout in network byte order, up to a cutoff
// the layout fixes; character arrays after the cutoff travel as they are.
// Floats travel as the bit pattern of a 32-bit float in the same order,
// 64-bit counts as two words (high, low), address families and socket types
// as netperf's own codes (NF_INET = 4, NST_STREAM = 1). The layouts here
// are facts of the wire, read from netperf's nettest_bsd.h and netlib.h; the
// package has no sockets in it, so both ends and the fuzz targets share it.
package npwire
