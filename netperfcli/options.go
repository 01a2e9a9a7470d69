package netperfcli

// globalArg says which global options take an argument (netperf's option
// string); the ones netscript refuses are listed too, so they are refused
// by name rather than called unknown.
var globalArg = map[byte]bool{
	'A': true, 'a': true, 'b': true, 'B': true, 'C': false, 'c': false, 'd': false, 'D': true,
	'f': true, 'F': true, 'H': true, 'h': false, 'i': true, 'I': true, 'j': false, 'k': true,
	'K': true, 'l': true, 'L': true, 'n': true, 'N': false, 'O': true, 'o': true, 'P': true,
	'p': true, 'r': false, 'S': false, 's': true, 't': true, 'T': true, 'v': true, 'V': false,
	'W': true, 'w': true, 'y': true, 'Y': true, 'Z': true, '4': false, '6': false,
}

// globalRefused explains the global options netscript does not run.
var globalRefused = map[byte]string{
	'A': "netscript does not align buffers", 'a': "netscript does not align buffers",
	'o': "netscript does not offset buffers", 'O': "netscript does not offset buffers",
	'W': "netscript sizes its own buffer rings", 'F': "netscript does not pre-fill buffers from files",
	'y': "netscript does not set SO_PRIORITY", 'Y': "netscript does not set IP_TOS",
	'Z': "netscript servers authenticate with a token (--token-file)", 'n': "netscript counts the CPUs itself",
	'k': "netscript has no dirty-buffer mode", 'K': "netscript has no dirty-buffer mode",
	's': "netscript starts every test at once after set-up", 'S': "netscript does not set SO_KEEPALIVE",
	'd': "netscript has no debug output; use --script to see what runs",
}

// testArg says which test-specific options take an argument.
var testArg = map[byte]bool{
	'r': true, 'm': true, 'M': true, 's': true, 'S': true, 'D': false, 'F': false, 'P': true,
	'L': true, 'b': true, 'p': true, 'h': false, '4': false, '6': false,
	'k': false, 'o': false, 'O': false, // their argument is optional
	// netperf's other omni options, refused by name (testRefused).
	'd': true, 'e': true, 'G': true, 'H': true, 'K': true, 'l': true, 'q': true, 'R': true,
	't': true, 'T': true, 'u': true, 'w': true, 'W': true,
	'a': false, 'B': false, 'c': false, 'C': false, 'f': false, 'g': false, 'I': false,
	'n': false, 'N': false, 'U': false, 'V': false,
}

// testRefused explains the test-specific options netscript does not run.
var testRefused = map[byte]string{
	'd': "the test's name sets its direction", 'T': "the test's name sets its protocol", 't': "the test's name sets its socket type",
	'c': "the test's name says whether it is a connection test", 'e': "UDP_RR counts a lost datagram after its own timeout",
	'G': "netscript does not set TCP_MAXSEG", 'H': "the data connection goes to the -H host",
	'K': "netscript uses the kernel's congestion control", 'l': "netscript does not send multicast",
	'q': "netscript does not set SO_MAX_PACING_RATE; pace with -w and -b", 'R': "netscript does not set SO_DONTROUTE",
	'u': "netscript makes the test's UUID itself", 'w': "netscript does not set the receive low water mark",
	'W': "netscript sizes its own buffer rings", 'a': "netscript does not set TCP_DEFER_ACCEPT",
	'B': "netscript does not set IP_PKTINFO", 'C': "netscript does not set TCP_CORK",
	'f': "netscript does not set IP_MTU_DISCOVER", 'g': "netscript does not set SO_DEBUG",
	'I': "netscript sends with send()", 'n': "netscript's UDP tests use connected sockets",
	'N': "netscript's UDP tests use connected sockets", 'U': "netscript walks to the next port on a failed connect",
	'V': "netscript does not use copy avoidance",
}

// otherTests are netperf 2.7.1's tests that netscript does not run: they
// are refused as such rather than called unknown.
var otherTests = map[string]bool{
	"OMNI": true, "TCP_SENDFILE": true, "TCP_TRR": true, "TCP_NBRR": true, "TCP_ARR": true, "TCP_TRR_OLD": true,
	"TCPIPV6_STREAM": true, "TCPIPV6_RR": true, "TCPIPV6_CRR": true, "UDPIPV6_STREAM": true, "UDPIPV6_RR": true,
	"SCTP_STREAM": true, "SCTP_RR": true, "SCTP_STREAM_MANY": true, "SCTP_RR_MANY": true,
	"STREAM_STREAM": true, "STREAM_RR": true, "DG_STREAM": true, "DG_RR": true,
	"DLCO_STREAM": true, "DLCO_RR": true, "DLCL_STREAM": true, "DLCL_RR": true,
	"XTI_TCP_STREAM": true, "XTI_TCP_RR": true, "XTI_TCP_CRR": true, "XTI_UDP_STREAM": true, "XTI_UDP_RR": true,
	"SDP_STREAM": true, "SDP_MAERTS": true, "SDP_RR": true, "DNS_RR": true, "LOC_CPU": true, "REM_CPU": true,
}
