package netperfcli

import (
	"fmt"
	"io"
	"strings"
)

// getopt reads options as the C library's getopt(3) does for netperf:
// netperf calls it once for the global options, which stop at "--", and
// again, on the same argument vector, for the test's options after it.
// Like GNU getopt it steps over words that are no options (netperf never
// reads them), reads clusters ("-Cc"), glued arguments ("-tTCP_RR"), and
// reports a bad option on the error stream in getopt's words, with the
// program's name, and as '?'.
type getopt struct {
	prog   string
	args   []string // the whole vector, the program's name first
	optind int      // the next word to read
	next   int      // within args[optind]: the next option letter of a cluster; 0: none
	optarg string
	errOut io.Writer
}

func newGetopt(prog string, args []string, errOut io.Writer) *getopt {
	return &getopt{prog: prog, args: append([]string{prog}, args...), optind: 1, errOut: errOut}
}

// done is what opt returns when the options end: at "--" (stepped over),
// or at the end of the vector.
const done = -1

// opt returns the next option letter of spec (a letter followed by ':'
// takes an argument), or done. A letter not in spec, or one missing its
// argument, is reported and returned as '?'.
func (g *getopt) opt(spec string) int {
	g.optarg = ""
	if g.next == 0 {
		for {
			if g.optind >= len(g.args) {
				return done
			}
			a := g.args[g.optind]
			if a == "--" {
				g.optind++
				return done
			}
			if len(a) > 1 && a[0] == '-' {
				g.next = 1
				break
			}
			g.optind++ // not an option: stepped over, as GNU getopt permutes it away
		}
	}
	word := g.args[g.optind]
	c := word[g.next]
	g.next++
	last := g.next >= len(word)
	i := strings.IndexByte(spec, c)
	if i < 0 || c == ':' {
		fmt.Fprintf(g.errOut, "%s: invalid option -- '%c'\n", g.prog, c)
		if last {
			g.optind, g.next = g.optind+1, 0
		}
		return '?'
	}
	if i+1 < len(spec) && spec[i+1] == ':' {
		switch {
		case !last:
			g.optarg = word[g.next:]
			g.optind++
		case g.optind+1 < len(g.args):
			g.optarg = g.args[g.optind+1]
			g.optind += 2
		default:
			fmt.Fprintf(g.errOut, "%s: option requires an argument -- '%c'\n", g.prog, c)
			g.optind++
			g.next = 0
			return '?'
		}
		g.next = 0
		return int(c)
	}
	if last {
		g.optind, g.next = g.optind+1, 0
	}
	return int(c)
}

// peek is the word netperf looks at after an option with an optional
// argument (argv[optind]): the next word once the cluster is read, else
// the cluster itself; "" at the end.
func (g *getopt) peek() string {
	if g.optind < len(g.args) {
		return g.args[g.optind]
	}
	return ""
}

// take consumes the word peek returned, as netperf's optind++.
func (g *getopt) take() { g.optind++ }
