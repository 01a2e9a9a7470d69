package plot

import (
	"fmt"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
)

// typeface is the name under which pictures lay out their text in the Go
// fonts' regular face (golang.org/x/image/font/gofont): a font that ships
// inside the binary, so a picture's layout never depends on the fonts a
// system has, and whose SVG embeds it for a viewer that has no such font.
const typeface = "Go"

// goText returns a text handler that lays text out in the Go font. It
// parses the font (a few microseconds: the tables are read in place) for
// each picture rather than keep a cache between pictures.
func goText() (text.Handler, error) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("the Go font: %w", err)
	}
	return text.Plain{Fonts: font.NewCache(font.Collection{{Font: font.Font{Typeface: typeface}, Face: f}})}, nil
}

// newPlot returns an empty gonum plot whose every text (title, axis
// labels, ticks, legend) is laid out in the Go font.
func newPlot() (*gplot.Plot, error) {
	h, err := goText()
	if err != nil {
		return nil, err
	}
	p := gplot.New()
	for _, s := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		s.Font.Typeface, s.Font.Variant, s.Handler = typeface, "", h
	}
	return p, nil
}

// inFontOf lays the texts of styles (a plotter's labels) out in p's font.
func inFontOf(p *gplot.Plot, styles []text.Style) {
	for i := range styles {
		s := &styles[i]
		s.Font.Typeface, s.Font.Variant, s.Handler = typeface, "", p.Legend.TextStyle.Handler
	}
}
