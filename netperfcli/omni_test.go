package netperfcli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"netscript/engine/result"
)

// figuresOf is a test's figures without running it: a TCP_RR of 1000
// transactions in 2 s.
func figuresOf(t *testing.T, line string) (*Command, *Figures) {
	t.Helper()
	c, _, _ := parse(t, line)
	c.uuid = "00000000-0000-4000-8000-000000000000"
	r := &result.Result{Elapsed: 2, Transactions: 1000, BytesSent: 1000, BytesReceived: 1000,
		Config: result.Config{LocalSendBuffer: 16384, LocalRecvBuffer: 131072, RemoteSendBuffer: 16384, RemoteRecvBuffer: 131072}}
	return c, c.figures([]*iteration{{r: r}})
}

func omniOut(t *testing.T, c *Command, f *Figures) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Omni(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestKeyval: NAME=value lines; a brand not given has none.
func TestKeyval(t *testing.T) {
	c, f := figuresOf(t, "-t TCP_RR -- -k throughput,result_brand,protocol,bogus")
	if got, want := omniOut(t, c, f), "THROUGHPUT=500.00\nPROTOCOL=TCP\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	c, f = figuresOf(t, `-t TCP_RR -B "a b" -- -k result_brand`)
	if got, want := omniOut(t, c, f), "RESULT_BRAND=\"a b\"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCSV: netperf's header and value lines with its quirks: an unset
// brand's comma and blank, an unknown name's value without a header, the
// quoted brand, no header with -P 0.
func TestCSV(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"-t TCP_RR -- -o throughput,result_brand", "Throughput,Result Tag\n500.00,,\n"},
		{"-t TCP_RR -- -o result_brand,throughput", "Result Tag,Throughput\n, 500.00\n"},
		{`-t TCP_RR -B "iteration 1" -- -o result_brand,throughput`, "Result Tag,Throughput\n\"iteration 1\",500.00\n"},
		{"-t TCP_RR -P 0 -- -o throughput,bogus,protocol", "500.00,, TCP\n"},
		{"-t TCP_RR -- -o output_none,protocol", " ,Protocol\n ,TCP\n"},
		{"-t TCP_RR -- -o protocol;direction", "Protocol,Direction\nTCP,Send|Recv\n"},
		{"-t TCP_RR -- -o protocol,output_end,direction", "Protocol\nTCP\n"},
	} {
		c, f := figuresOf(t, tc.line)
		if got := omniOut(t, c, f); got != tc.want {
			t.Errorf("netperf %s:\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
}

// TestHuman: -O's columns, as wide as the widest header line or value and
// a blank; blocks a blank line apart; -P 0 the values alone.
func TestHuman(t *testing.T) {
	c, f := figuresOf(t, "-t TCP_RR -- -O throughput,protocol;elapsed_time")
	want := "Throughput Protocol \n" +
		"                    \n" +
		"                    \n" +
		"                    \n" +
		"500.00     TCP      \n" +
		"\n" +
		"Elapsed \n" +
		"Time    \n" +
		"(sec)   \n" +
		"        \n" +
		"2.00    \n"
	if got := omniOut(t, c, f); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	c, f = figuresOf(t, "-t TCP_RR -P 0 -- -O local_bytes_xferd,socket_type")
	if got, want := omniOut(t, c, f), "2000    Stream  \n"; got != want { // widths from the headers too
		t.Errorf("-P 0: got %q, want %q", got, want)
	}
}

// TestAll: "all" is four blocks of every selector but OUTPUT_NONE and
// OUTPUT_END, in netperf's order.
func TestAll(t *testing.T) {
	blocks := allBlocks()
	n := 0
	for _, b := range blocks {
		n += len(b)
	}
	if len(blocks) != 4 || n != len(selectors)-2 || blocks[0][0].name != "SOCKET_TYPE" || blocks[3][len(blocks[3])-1].name != "COMMAND_LINE" {
		t.Errorf("%d blocks of %d selectors", len(blocks), n)
	}
}

// TestSelectionFile: a name that is no selector is a file of them, one
// block a line, names or header words; a file that cannot be read is
// netperf's error.
func TestSelectionFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sel")
	if err := os.WriteFile(path, []byte("THROUGHPUT,Elapsed Time (sec)\nprotocol\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, f := figuresOf(t, "-t TCP_RR -- -k "+path)
	if got, want := omniOut(t, c, f), "THROUGHPUT=500.00\nELAPSED_TIME=2.00\nPROTOCOL=TCP\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	c, f = figuresOf(t, "-t TCP_RR -- -k /nonexistent/sel")
	if err := c.Omni(&bytes.Buffer{}, f); err == nil || err.Error() != "Could not open output selection file '/nonexistent/sel' errno 2" {
		t.Errorf("missing file: %v", err)
	}
}

// TestListSelectors: -o ? lists every selector with commas, -O ? a line
// each, as netperf's dump_netperf_output_choices.
func TestListSelectors(t *testing.T) {
	csv := ListSelectors(true)
	if !strings.HasPrefix(csv, "OUTPUT_NONE,SOCKET_TYPE,PROTOCOL,") || !strings.HasSuffix(csv, ",COMMAND_LINE,OUTPUT_END\n") {
		t.Errorf("-o ?: %q", csv)
	}
	if h := ListSelectors(false); strings.Count(h, "\n") != len(selectors) {
		t.Errorf("-O ?: %d lines", strings.Count(h, "\n"))
	}
}

// TestValues checks netperf's readers of values.
func TestValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{{"64K", 65536}, {"1M", 1 << 20}, {"2m", 2000000}, {"3k", 3000}, {"0", 0}, {"-1", -1}, {"abc", 0}, {"12abc", 12}, {" 7", 7}} {
		if got := convert(tc.in); got != tc.want {
			t.Errorf("convert(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want int
	}{{"10", 10000}, {"10ms", 10000}, {"250u", 250}, {"2s", 2000000}} {
		if got := convertTimespec(tc.in); got != tc.want {
			t.Errorf("convertTimespec(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want int
	}{{"EF", 0xb8}, {"af41", 0x88}, {"0x20", 0x20}, {"040", 32}, {"184", 184}, {"256", -1}, {"x", -1}} {
		if got := parseIPQoS(tc.in); got != tc.want {
			t.Errorf("parseIPQoS(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if a, b := breakArgs("5"); a != "5" || b != "5" {
		t.Errorf("breakArgs(5) = %q, %q", a, b)
	}
	if a, b := breakArgsExplicit("5"); a != "5" || b != "" {
		t.Errorf("breakArgsExplicit(5) = %q, %q", a, b)
	}
	if d := parseDirection("send|recv"); d != dirXmit|dirRecv {
		t.Errorf("send|recv = %d", d)
	}
}
