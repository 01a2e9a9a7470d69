package plot

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"netscript/engine/hist"
)

// -update rewrites testdata/*.golden from what the charts draw now. The
// module's tests of its builtins (package plot_test) use
// internal/startest, whose golden files take the same flag: whichever
// package starts first defines it, and both read it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite testdata/*.golden from what the charts draw now")
	}
}

// updating reports whether -update was given.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// sweep is a burst sweep of two tests, as plot() lays it out.
func sweep() *Figure {
	return &Figure{
		Title: "TCP_RR and UDP_RR against burst", XLabel: "config.burst", YLabel: "throughput (Trans/s)",
		Series: []Series{
			{Name: "tcp_rr", Points: []Point{{X: 0, Y: 21000}, {X: 4, Y: 64000}, {X: 16, Y: 150000}}},
			{Name: "udp_rr", Points: []Point{{X: 0, Y: 25000}, {X: 4, Y: 80000}, {X: 16, Y: 120000}}},
		},
	}
}

// fixedHist is a latency histogram of 10000 transactions: most near 20 us,
// a tail to 2 ms.
func fixedHist() *hist.Histogram {
	h := hist.New()
	for i := 0; i < 10000; i++ {
		v := int64(15000 + (i*7919)%10000)
		switch {
		case i%1000 == 0:
			v = 2_000_000
		case i%100 == 0:
			v = 200_000
		}
		h.Record(v)
	}
	return h
}

func latency(t *testing.T, kind string) *Figure {
	s, err := LatencySeries("tcp_rr", fixedHist(), kind)
	if err != nil {
		t.Fatal(err)
	}
	return &Figure{XLabel: "latency (µs)", YLabel: "fraction", LogX: true, LogY: kind == CCDF, Step: true, Series: []Series{s}}
}

func confidenceBars() *Bars {
	return &Bars{Title: "99% intervals", YLabel: "throughput (Trans/s)", Bars: []Bar{
		{Label: "nodelay", Value: 27000, Low: 26500, High: 27600},
		{Label: "nagle", Value: 21000, Low: 20000, High: 22500},
		{Label: "busy_poll", Value: 31000, Low: 30800, High: 31300},
	}}
}

func compareBars() *Bars {
	return &Bars{YLabel: "change in throughput (Trans/s)", Bars: []Bar{
		{Label: "a vs b", Value: -500, Low: -900, High: -100},
		{Label: "a vs c", Value: 300, Low: -200, High: 800},
	}}
}

// TestTextGolden: fixed inputs draw the charts in testdata/*.golden, within
// 72 columns and 20 lines, in ASCII unless asked for unicode.
func TestTextGolden(t *testing.T) {
	cases := []struct {
		name    string
		text    func() (string, error)
		unicode bool
	}{
		{"sweep", func() (string, error) { return sweep().Text(false) }, false},
		{"sweep_unicode", func() (string, error) { return sweep().Text(true) }, true},
		{"cdf", func() (string, error) { return latency(t, CDF).Text(false) }, false},
		{"ccdf", func() (string, error) { return latency(t, CCDF).Text(false) }, false},
		{"histogram", func() (string, error) { return latency(t, Histogram).Text(false) }, false},
		{"bars", func() (string, error) { return confidenceBars().Text(false) }, false},
		{"bars_unicode", func() (string, error) { return confidenceBars().Text(true) }, true},
		{"bars_compare", func() (string, error) { return compareBars().Text(false) }, false},
		{"categories", func() (string, error) {
			f := &Figure{YLabel: "throughput", XNames: []string{"small", "medium", "large"},
				Series: []Series{{Points: []Point{{X: 0, Y: 10, Low: 8, High: 12, Err: true}, {X: 1, Y: 30, Low: 25, High: 33, Err: true}, {X: 2, Y: 20, Low: 19, High: 21, Err: true}}}}}
			return f.Text(false)
		}, false},
		{"timeseries_flows", func() (string, error) { return flowsTimeseries().Text(false) }, false},
		{"eight", func() (string, error) { return eightSeries().Text(false) }, false},
		{"eight_unicode", func() (string, error) { return eightSeries().Text(true) }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.text()
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(got, "\n")
			if len(lines) > TextHeight {
				t.Errorf("%d lines, more than %d", len(lines), TextHeight)
			}
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > TextWidth {
					t.Errorf("line of %d columns, more than %d: %q", n, TextWidth, l)
				}
				if !c.unicode {
					for _, r := range l {
						if r > 126 {
							t.Errorf("not ASCII: %q in %q", r, l)
							break
						}
					}
				}
			}
			path := filepath.Join("testdata", c.name+".golden")
			if updating() {
				if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if got+"\n" != string(want) {
				t.Errorf("chart differs from %s (go test -update rewrites it):\n%s", path, got)
			}
		})
	}
}

// TestTextNothing: an empty figure or bar chart is an error, not a blank.
func TestTextNothing(t *testing.T) {
	if _, err := (&Figure{}).Text(false); err == nil {
		t.Error("empty figure drew")
	}
	if _, err := (&Bars{}).Text(false); err == nil {
		t.Error("empty bars drew")
	}
	f := &Figure{LogY: true, Series: []Series{{Points: []Point{{X: 1, Y: 0}}}}}
	if _, err := f.Text(false); err == nil || !strings.Contains(err.Error(), "log axes") {
		t.Errorf("nothing showable on a log axis: %v", err)
	}
}

// eightSeries is a sweep of eight request sizes against burst: lines that
// run close, cross and meet, as a real sweep's do.
func eightSeries() *Figure {
	f := &Figure{Title: "TCP_RR against burst, by request size", XLabel: "config.burst", YLabel: "throughput (Trans/s)"}
	bursts := []float64{0, 1, 2, 4, 8, 16, 32}
	for i, size := range []int{1, 64, 128, 256, 512, 1024, 4096, 16384} {
		s := Series{Name: fmt.Sprintf("request=%d", size)}
		for j, b := range bursts {
			// Small requests gain most from bursts; large ones flatten,
			// and the two families cross around burst 4.
			base := 24000.0 - 1800*float64(i)
			gain := 5200.0 - 600*float64(i)
			s.Points = append(s.Points, Point{X: b, Y: base + gain*float64(j)*(1-0.04*float64(i*j))})
		}
		f.Series = append(f.Series, s)
	}
	return f
}

// TestTextEightSeries: a chart of eight series names each in its legend by
// a mark of its own, shows each mark in the plot, and where points of
// several series share a cell says how many, rather than letting the last
// series drawn hide the others.
func TestTextEightSeries(t *testing.T) {
	for _, unicode := range []bool{false, true} {
		f := eightSeries()
		got, err := f.Text(unicode)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(got, "\n")
		plotArea := strings.Join(lines[2:len(lines)-6], "\n")
		marks := map[string]bool{}
		for i, s := range f.Series {
			mark := glyphSet(unicode).marks[i]
			if marks[mark] {
				t.Errorf("mark %q used twice", mark)
			}
			marks[mark] = true
			if !strings.Contains(got, mark+" "+s.Name) {
				t.Errorf("legend lacks %q", mark+" "+s.Name)
			}
			if !strings.Contains(plotArea, mark) {
				t.Errorf("no point of %s (%q) shows", s.Name, mark)
			}
		}
		if !strings.Contains(got, "points of that many series in one cell") {
			t.Error("shared cells are not explained")
		}
	}
}
