package progress

import (
	"strings"
	"testing"
	"time"

	"netscript/engine/client"
)

// TestTermProgress: what the status line shows, and that it is erased.
func TestTermProgress(t *testing.T) {
	pr := client.Progress{Test: "TCP_RR", Elapsed: 3200 * time.Millisecond, Total: 10 * time.Second,
		Transactions: 167396, Throughput: 52311.4, Units: "Trans/s"}
	cases := []struct {
		name string
		run  func(p *TermProgress)
		want string // the screen's bytes
	}{
		// A timed test: elapsed of total and the rate so far.
		{"timed", func(p *TermProgress) { p.Test(pr) },
			"\rTCP_RR  3.2 s of 10.0 s  52311.40 Trans/s\x1b[K"},
		// A test that ends by count shows how many are done.
		{"by count", func(p *TermProgress) {
			q := pr
			q.Total, q.Brand = 0, "x"
			p.Test(q)
		}, "\rTCP_RR \"x\"  3.2 s, 167396 transactions  52311.40 Trans/s\x1b[K"},
		// Under confidence(): the iteration is announced, then shown beside
		// the test, and gone after Done.
		{"iteration", func(p *TermProgress) {
			p.Iteration("confidence", 2, 10)
			p.Test(pr)
			p.Done()
			p.Test(pr)
		}, "\rconfidence: iteration 2 of 10\x1b[K" +
			"\rTCP_RR  3.2 s of 10.0 s  52311.40 Trans/s  confidence: iteration 2 of 10\x1b[K" +
			"\r\x1b[K" +
			"\rTCP_RR  3.2 s of 10.0 s  52311.40 Trans/s\x1b[K"},
		// Done with nothing shown writes nothing.
		{"done only", func(p *TermProgress) { p.Done() }, ""},
		// A narrow terminal: the line is cut, never wrapped.
		{"narrow", func(p *TermProgress) { p.width = 20; p.Test(pr) },
			"\rTCP_RR  3.2 s of 10\x1b[K"},
	}
	for _, c := range cases {
		var b strings.Builder
		p := NewTermProgress(&b, 0)
		c.run(p)
		if b.String() != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.name, b.String(), c.want)
		}
	}
}
