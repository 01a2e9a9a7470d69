package netperfcli

// Usage is netperf's usage text as netscript's netperf runs it: the global
// options netperf 2.7.1 has, each saying whether netscript runs it.
func Usage() string {
	return `
Usage: netperf [global options] -- [test options]
       (netscript's netperf: netperf 2.7.1's command line on netscript's engine;
        netscript netperf --script ARGS prints the Starlark script it amounts to)

Global options:
    -4 / -6           Use AF_INET / AF_INET6 for the data connection
    -B brandstr       Specify a string to be emitted with brief output
    -b n              Operations per -w interval (with -w: a paced test)
    -c / -C           Report local / remote CPU usage (netscript measures both ends)
    -D secs           Display interim results every secs seconds (units ignored)
    -f G|M|K|g|m|k|x  Set the output units (capitals: 2^10^n bytes, lower case: 10^3n bits)
    -h                Display this text
    -H name|ip,fam *  The far end; without it, netscript's embedded loopback server
    -i max,min        Max and min number of iterations (clamped to 3..30; default 10,3)
    -I lvl[,width]    Confidence level (95 or 99, default 99) and full width in % (default 5)
    -j                Keep latency statistics (netscript always does)
    -l testlen        Test length: > 0 seconds, < 0 transactions (RR) or bytes (streams)
    -L name|ip,fam *  The local address and family
    -N                No control connection: a standing endpoint at -H and -- -P ,port
    -p port*          The far end's control port (default 12865)
    -P 0|1            Don't/Do display the banner and headers
    -r                Let the confidence rule watch the result only, not CPU
    -t testname       TCP_STREAM (default), TCP_MAERTS, TCP_RR, TCP_CRR, UDP_RR,
                      UDP_STREAM or TCP_CC
    -T lcpu,rcpu      Bind the local / remote data path to a CPU
    -v 0|1|2          Verbosity (2: the histogram dump, request/response tests)
    -V                Display the version and exit
    -w time           Pacing interval (ms, or with a u, m or s suffix), with -b

Refused by netscript, with the reason: -a -A -o -O (alignment, offsets),
-d, -F (fill files), -k -K (dirty buffers), -n, -s (start delay), -S
(keepalive), -W, -y, -Y, -Z (netscript servers use --token-file), -l 0.

For those options taking two parms, "a,b" sets both, "a," only the first,
",b" only the second and a single value sets both, except for the options
marked * where a single value sets only the first. Sizes take K, M, G
(1024^n) and k, m, g (1000^n) suffixes.
`
}

// TestUsage is the test-specific options' text (netperf -t TEST -- -h).
func TestUsage() string {
	return `
Usage: netperf [global options] -- [test options]
       (netscript's netperf)

Test options of the seven tests netscript runs:
    -b number         Keep number requests in flight beyond the first (TCP_RR, UDP_RR)
    -D                Set TCP_NODELAY on both ends (TCP tests)
    -F                Use TCP Fast Open (TCP_CRR)
    -h                Display this text
    -k [list]         Generate keyval output ('?' lists the selectors)
    -L name,fam       Source address (and family) of the data connection
    -m size           Send size of _STREAM/_MAERTS tests
    -M size           Receive size of _STREAM/_MAERTS tests
    -o [list]         Generate CSV output
    -O [list]         Generate column output
    -p min[,max]      Source port range of TCP_CRR and TCP_CC
    -P local[,remote] The data connection's local and remote ports
    -r req[,rsp]      Request and response sizes (TCP_RR, TCP_CRR, UDP_RR)
    -s send[,recv]    Local socket send and receive buffer sizes
    -S send[,recv]    Remote socket send and receive buffer sizes
    -4 / -6           Use AF_INET / AF_INET6 for the data connection

netperf's other test options (-a -B -c -C -d -e -f -g -G -H -I -K -l -n -N
-q -R -t -T -u -U -V -w -W) are refused: netscript runs the seven tests
above as their names define them. Selector lists are comma separated;
netscript reads no selector files.
`
}
