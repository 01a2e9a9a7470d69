package netperfcli

// Usage is the usage text of netscript's netperf: netperf 2.7.1's global
// options, each with what netscript does with it.
func Usage() string {
	return `
Usage: netperf [global options] -- [test options]
       (netscript's netperf: netperf 2.7.1's command line on netscript's engine;
        netscript netperf --script ARGS prints the Starlark script it amounts to)

Global options:
    -4 / -6           Use AF_INET / AF_INET6 for the control and data connections
    -a send,recv      Set the local send,recv buffer alignment (reported)
    -A send,recv      Set the remote send,recv buffer alignment (sent to netserver)
    -b n[,rn]         Operations per -w interval: a paced test
    -B brandstr       A string to end brief output with (-P 0)
    -c [cpu_rate]     Report local CPU usage (/proc/stat; the rate is ignored)
    -C [cpu_rate]     Report remote CPU usage
    -d                Increase debugging output (-d -d: DUMP_TCP_INFO's lines)
    -D time,[units] * Interim results every time seconds (a negative time as well)
    -f G|M|K|g|m|k|x  Set the output units
    -F lfill[,rfill]* Pre-fill buffers from files (reported; netserver fills its own)
    -h                Display this text
    -H name|ip,fam *  The netserver (or netscript serve --netperf-listen); without
                      it, netscript's embedded loopback server
    -i max,min        Max and min number of iterations (clamped to 3..30)
    -I lvl[,intvl]    Confidence level (95 or 99) and interval width in percent
    -j                Keep additional timing statistics (always kept)
    -k / -K           Dirty buffers: not in netperf 2.7.1 as built, which says so
    -l testlen        Test length: > 0 seconds, < 0 transactions or bytes, 0 until ^C
    -L name|ip,fam *  The local address and family
    -n numcpu         The CPU count (the kernel's is used)
    -N                No control connection: straight to the data port
    -o send,recv      Local buffer offsets (reported)
    -O send,recv      Remote buffer offsets (sent to netserver)
    -p port,lport*    netserver's port (12865) and the control connection's
    -P 0|1            Don't/Do display the banner and headers
    -r                Let confidence be hit on the result only
    -s seconds        Wait seconds before the test starts
    -S                SO_KEEPALIVE on the data connection (netserver's end)
    -t testname       TCP_STREAM (default), TCP_MAERTS, TCP_RR, TCP_CRR, UDP_RR,
                      UDP_STREAM, TCP_CC, omni, LOC_CPU, REM_CPU, UUID
    -T lcpu,rcpu      Bind the local / remote data path to a CPU
    -v verbosity      Verbosity (0: the figure alone, 2: the histogram dump)
    -V                Display the version and exit
    -w time[,rtime]   Pacing interval (ms, or with a u, m or s suffix), with -b
    -W send,recv      Number of send,recv buffers (reported)
    -y local,remote   SO_PRIORITY (netserver's end)
    -Y local,remote   IP_TOS, a number or a DSCP name (cs1, ef, af41, ...)
    -Z passphrase     Sent to netserver first

For those options taking two parms, "a,b" sets both, "a," only the first,
",b" only the second and a single value sets both, except for the options
marked * where a single value sets only the first. Sizes take K, M, G
(1024^n) and k, m, g (1000^n) suffixes.
`
}

// TestUsage is the test-specific options' text (netperf -t TEST -- -h):
// the omni test's, which the migrated tests share, or TCP_CC's.
func TestUsage(omni bool) string {
	if !omni {
		return `
Usage: netperf [global options] -- [test options]

TCP_CC Test Options (netscript's netperf):
    -b number         Send number requests at start of _RR tests (ignored)
    -C                Set TCP_CORK (ignored: TCP_CC sends no data)
    -D                Set TCP_NODELAY on both ends
    -h                Display this text
    -H name,fam       Target of the data connection
    -L name,fam       Source of the data connection
    -p min[,max]      The local port range to walk
    -P local[,remote] The local / remote data ports
    -s send[,recv]    Local socket send/recv buffer sizes
    -S send[,recv]    Remote socket send/recv buffer sizes
    -4 / -6           AF_INET / AF_INET6 for the data connection
`
	}
	return `
Usage: netperf [global options] -- [test options]

OMNI and Migrated BSD Sockets Test Options (netscript's netperf):
    -b number         Requests in flight beyond the first (_RR tests)
    -c                A connection per transaction (TCP_CRR, TCP_CC)
    -C                Set TCP_CORK (stream tests)
    -d direction      -t omni: send, recv, rr (or 2, 4, 6, | to combine)
    -D                Set TCP_NODELAY on both ends
    -e secs           UDP_RR: a response lost after secs seconds starts over
    -f                IP_MTU_DISCOVER (netserver's end)
    -F                TCP Fast Open (TCP_CRR)
    -G mss            TCP_MAXSEG on this end
    -h                Display this text
    -H name[/mask],fam  Target of the data connection
    -k [list|file]    Keyval output ('?' lists the selectors, all: every one)
    -K loc[,rem]      Congestion control on each end
    -L name[/mask],fam  Source of the data connection
    -m local,remote   Send sizes of _STREAM/_MAERTS tests
    -M remote,local   Receive sizes of _STREAM/_MAERTS tests
    -o [list|file]    CSV output
    -O [list|file]    Column output (';' starts a block)
    -p min[,max]      The local port range TCP_CRR walks
    -P local[,remote] The local / remote data ports
    -q rate           SO_MAX_PACING_RATE in bytes/s on this end
    -r req[,rsp]      Request / response sizes
    -R 0/1            Routing on the data connection (netserver's end)
    -s send[,recv]    Local socket send/recv buffer sizes (0: the kernel's least)
    -S send[,recv]    Remote socket send/recv buffer sizes
    -t type           -t omni: stream or dgram
    -T protocol       -t omni: tcp or udp
    -u uuid           The test's UUID
    -4 / -6           AF_INET / AF_INET6 for the data connection

Options netperf reads and netscript reports without acting on them: -a, -B,
-g, -I, -j, -l, -n, -N, -U, -V, -W. For those options taking two parms,
"a,b" sets both, "a," only the first, ",b" only the second and a single value
sets both.
`
}
