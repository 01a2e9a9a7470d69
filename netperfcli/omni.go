package netperfcli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxBlocks is netperf's NETPERF_MAX_BLOCKS: the blocks (lines of -O
// columns) a selection may have; later ones are ignored.
const maxBlocks = 4

// entry is one column of a selection: a selector, or nil for a name
// netperf does not know (it prints an empty column for it).
type entry = *selector

// The default lists of netperf's set_output_list_by_test.
const (
	listTput   = "ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS"
	listStream = "LSS_SIZE_END,RSR_SIZE_END,LOCAL_SEND_SIZE"
	listMaerts = "RSS_SIZE_END,LSR_SIZE_END,REMOTE_SEND_SIZE"
	listRR     = "LSS_SIZE_END,LSR_SIZE_END,RSR_SIZE_END,RSS_SIZE_END,REQUEST_SIZE,RESPONSE_SIZE"
	listCPU    = "LOCAL_CPU_UTIL,LOCAL_CPU_PERCENT_USER,LOCAL_CPU_PERCENT_SYSTEM,LOCAL_CPU_PERCENT_IOWAIT,LOCAL_CPU_PERCENT_IRQ," +
		"LOCAL_CPU_PERCENT_SWINTR,LOCAL_CPU_METHOD,REMOTE_CPU_UTIL,REMOTE_CPU_PERCENT_USER,REMOTE_CPU_PERCENT_SYSTEM," +
		"REMOTE_CPU_PERCENT_IOWAIT,REMOTE_CPU_PERCENT_IRQ,REMOTE_CPU_PERCENT_SWINTR,REMOTE_CPU_METHOD,LOCAL_SD,REMOTE_SD,SD_UNITS"
)

// selection is the blocks of selectors to print, as netperf's
// print_omni_init chooses them: the test's default list, "all" (four
// blocks of every selector), a list ("," between selectors, ";" between
// blocks), or the name of a file of them. A file that cannot be read is
// an error in netperf's words.
func (c *Command) selection() ([][]entry, error) {
	spec := c.Test.Selection
	switch {
	case spec == "":
		return parseDirect(c.defaultList()), nil
	case strings.EqualFold(spec, "all"):
		return allBlocks(), nil
	case strings.ContainsAny(spec, ",;"):
		return parseDirect(spec), nil
	}
	if _, ok := lookupSelector(spec); ok {
		return parseDirect(spec), nil
	}
	return parseFile(spec)
}

// defaultList is set_output_list_by_test's list for the test.
func (c *Command) defaultList() string {
	cpu := c.LocalCPU || c.RemoteCPU
	var l string
	switch d := c.Test.Direction & (dirXmit | dirRecv); {
	case d == dirXmit:
		l = listStream + "," + listTput
	case d == dirRecv:
		l = listMaerts + "," + listTput
	case c.isCC() || c.isRR():
		l = listRR + "," + listTput
	default:
		l = listTput
		cpu = true
	}
	if cpu {
		l += "," + listCPU
	}
	return l
}

// parseDirect reads a list: blocks split at ';', selectors at ',' or
// spaces, in any case; a name netperf does not know is an empty column,
// and OUTPUT_END ends its block.
func parseDirect(v string) [][]entry {
	var blocks [][]entry
	for i, line := range strings.Split(v, ";") {
		if i >= maxBlocks {
			break
		}
		var b []entry
		for _, tok := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' }) {
			sel, _ := lookupSelector(tok)
			b = append(b, sel)
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// allBlocks is netperf's "all": four blocks, from SOCKET_TYPE to
// RESPONSE_SIZE, LOCAL_CPU_UTIL to TRANSPORT_MSS, LOCAL_SEND_THROUGHPUT to
// REMOTE_CORK, and LOCAL_SYSNAME to COMMAND_LINE.
func allBlocks() [][]entry {
	ranges := [][2]string{{"SOCKET_TYPE", "RESPONSE_SIZE"}, {"LOCAL_CPU_UTIL", "TRANSPORT_MSS"},
		{"LOCAL_SEND_THROUGHPUT", "REMOTE_CORK"}, {"LOCAL_SYSNAME", "COMMAND_LINE"}}
	var blocks [][]entry
	for _, r := range ranges {
		var b []entry
		in := false
		for i := range selectors {
			if selectors[i].name == r[0] {
				in = true
			}
			if in {
				b = append(b, &selectors[i])
			}
			if selectors[i].name == r[1] {
				break
			}
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// parseFile reads a file of selectors, as netperf's
// parse_output_selection_file: up to four lines, one block each, names
// separated by commas; a name is a selector's or its header's words
// joined by spaces, in any case, and anything else is OUTPUT_NONE.
func parseFile(path string) ([][]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		errno := 2
		if os.IsPermission(err) {
			errno = 13
		}
		return nil, &Error{Msg: fmt.Sprintf("Could not open output selection file '%s' errno %d", path, errno), Status: 255, Stdout: true}
	}
	defer f.Close()
	var blocks [][]entry
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(blocks) < maxBlocks {
		var b []entry
		for _, name := range strings.Split(sc.Text(), ",") {
			b = append(b, matchHeader(name))
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// matchHeader is netperf's match_string_to_output: a selector by name or
// by its header's words, else OUTPUT_NONE.
func matchHeader(name string) entry {
	if sel, ok := lookupSelector(name); ok {
		return sel
	}
	for i := range selectors {
		if strings.EqualFold(name, csvHeader(&selectors[i])) {
			return &selectors[i]
		}
	}
	sel, _ := lookupSelector("OUTPUT_NONE")
	return sel
}

// csvHeader is a selector's header lines joined by spaces.
func csvHeader(sel entry) string {
	var parts []string
	for _, l := range sel.head {
		if l == "" {
			break
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, " ")
}

// cut is a block up to its OUTPUT_END.
func cut(b []entry) []entry {
	for i, e := range b {
		if e != nil && e.name == "OUTPUT_END" {
			return b[:i]
		}
	}
	return b
}

// value is an entry's value; ok false for none (an unknown name, a
// brand not given).
func (c *Command) value(e entry, f *Figures) (string, bool) {
	if e == nil {
		return "", false
	}
	return e.value(c, f)
}

// Omni writes the -k, -o or -O output (or the omni test's default
// columns) as netperf's print_omni does.
func (c *Command) Omni(out io.Writer, f *Figures) error {
	blocks, err := c.selection()
	if err != nil {
		return err
	}
	for i := range blocks {
		blocks[i] = cut(blocks[i])
	}
	switch c.Test.Output {
	case OutputKeyval:
		c.keyval(out, f, blocks)
	case OutputCSV:
		c.csv(out, f, blocks)
	default:
		c.human(out, f, blocks)
	}
	return nil
}

func (c *Command) keyval(out io.Writer, f *Figures, blocks [][]entry) {
	for _, b := range blocks {
		for _, e := range b {
			if v, ok := c.value(e, f); ok {
				fmt.Fprintf(out, "%s=%s\n", e.name, v)
			}
		}
	}
}

// csv writes the header line (with headers) and the value line, as
// netperf builds them: each header's words and a comma; each value and a
// comma, or a comma and a blank for none; the last character dropped.
func (c *Command) csv(out io.Writer, f *Figures, blocks [][]entry) {
	var hdr, val []byte
	any := false
	for _, b := range blocks {
		for _, e := range b {
			any = true
			if e != nil && e.head[0] != "" {
				hdr = append(hdr, csvHeader(e)...)
				hdr = append(hdr, ',')
			}
			if v, ok := c.value(e, f); ok {
				val = append(val, v...)
				val = append(val, ',')
			} else {
				val = append(val, ',', ' ')
			}
		}
	}
	if !any || len(blocks) == 0 || len(blocks[0]) == 0 {
		return
	}
	if c.PrintHeaders != 0 {
		if len(hdr) > 0 {
			hdr = hdr[:len(hdr)-1]
		}
		fmt.Fprintf(out, "%s\n", hdr)
	}
	fmt.Fprintf(out, "%s\n", val[:len(val)-1])
}

// human writes -O's columns: per block four header lines and the values,
// each column as wide as its widest header line or its value and a
// blank, every line padded to the block's width, a blank line between
// blocks.
func (c *Command) human(out io.Writer, f *Figures, blocks [][]entry) {
	widths := map[entry]int{}
	for _, b := range blocks {
		for _, e := range b {
			w := 0
			if e != nil {
				for _, l := range e.head {
					w = max(w, len(l))
				}
			}
			if v, ok := c.value(e, f); ok {
				w = max(w, len(v)+1)
			}
			widths[e] = max(widths[e], w)
		}
	}
	for i, b := range blocks {
		if len(b) == 0 {
			continue
		}
		if i > 0 {
			fmt.Fprintln(out)
		}
		var lines [5]strings.Builder
		for _, e := range b {
			w := widths[e]
			for k := 0; k < 4; k++ {
				l := ""
				if e != nil {
					l = e.head[k]
				}
				fmt.Fprintf(&lines[k], "%-*s ", w, l)
			}
			v, _ := c.value(e, f)
			fmt.Fprintf(&lines[4], "%-*s ", w, v)
		}
		for k := 0; k < 5; k++ {
			if k < 4 && c.PrintHeaders == 0 {
				continue
			}
			fmt.Fprintln(out, lines[k].String())
		}
	}
}

// ListSelectors is what -k ?, -o ? (commas) and -O ? (a line each) print:
// every selector netperf knows, in its order.
func ListSelectors(csv bool) string {
	var b strings.Builder
	for i, sel := range selectors {
		if i > 0 {
			if csv {
				b.WriteByte(',')
			} else {
				b.WriteByte('\n')
			}
		}
		b.WriteString(sel.name)
	}
	b.WriteByte('\n')
	return b.String()
}
