package plot

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/image/font/opentype"
	"golang.org/x/sys/unix"
	pfont "gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// fontDirs are where a Linux system keeps the fonts a picture could
// otherwise be laid out with.
var fontDirs = []string{"/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/X11/fonts"}

// childSVG names the SVG that TestPictureLegendClear's child process
// draws, in a mount namespace of its own where the system's font
// directories are empty.
const childSVG = "NETSCRIPT_PLOT_NOFONTS_SVG"

// TestPictureLegendClear: a picture of eight series drawn on a system with
// no fonts at all (its font directories hidden under empty tmpfs mounts in
// a child process's own mount namespace) embeds the font it was laid out
// with, and, measured with that embedded font as a viewer with no other
// font draws it, its legend's box (the series' names and their samples)
// overlaps neither the plotted lines nor any other text, and stays on the
// canvas.
func TestPictureLegendClear(t *testing.T) {
	if out := os.Getenv(childSVG); out != "" {
		drawWithoutFonts(t, out)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("hiding the system's fonts needs root (a mount namespace)")
	}
	out := filepath.Join(t.TempDir(), "eight.svg")
	cmd := exec.Command(os.Args[0], "-test.run=^TestPictureLegendClear$", "-test.count=1")
	cmd.Env = append(os.Environ(), childSVG+"="+out)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("drawing without system fonts: %v\n%s", err, b)
	}
	svg := parseLayout(t, out)
	f := eightSeries()
	names := map[string]bool{}
	for _, s := range f.Series {
		names[s.Name] = true
	}
	var legend box
	var others []box
	for _, tx := range svg.texts {
		b := tx.box(t, svg.face)
		if names[strings.TrimSpace(tx.s)] {
			legend = legend.union(b)
			delete(names, strings.TrimSpace(tx.s))
		} else {
			others = append(others, b)
		}
	}
	if len(names) > 0 {
		t.Fatalf("the legend lacks %v", names)
	}
	// The samples are drawn right of the names, to the canvas's edge.
	legend.x1 = svg.width
	if len(svg.lines) != len(f.Series) {
		t.Errorf("%d data lines, want %d", len(svg.lines), len(f.Series))
	}
	var lines box
	for _, l := range svg.lines {
		lines = lines.union(l)
	}
	t.Logf("legend %v, lines %v, canvas %.1f x %.1f", legend, lines, svg.width, svg.height)
	if legend.overlaps(lines) {
		t.Errorf("the legend %v overlaps the plotted lines %v", legend, lines)
	}
	for _, o := range others {
		if legend.overlaps(o) {
			t.Errorf("the legend %v overlaps the text at %v", legend, o)
		}
	}
	if legend.x0 < 0 || legend.y0 < 0 || legend.y1 > svg.height {
		t.Errorf("the legend %v leaves the canvas (%.1f x %.1f)", legend, svg.width, svg.height)
	}
}

// drawWithoutFonts is the child of TestPictureLegendClear: it empties the
// system's font directories for itself and draws the picture to out.
func drawWithoutFonts(t *testing.T, out string) {
	for _, d := range fontDirs {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=64k"); err != nil {
			t.Fatalf("hide %s: %v", d, err)
		}
		if ents, err := os.ReadDir(d); err != nil || len(ents) > 0 {
			t.Fatalf("%s still holds %d entries (%v)", d, len(ents), err)
		}
	}
	if err := Save(eightSeries(), out, Width, Height); err != nil {
		t.Fatal(err)
	}
}

// box is a rectangle in the picture's coordinates (points, y up).
type box struct {
	x0, y0, x1, y1 float64
	set            bool
}

func (b box) union(o box) box {
	if !b.set {
		return o
	}
	if !o.set {
		return b
	}
	return box{math.Min(b.x0, o.x0), math.Min(b.y0, o.y0), math.Max(b.x1, o.x1), math.Max(b.y1, o.y1), true}
}

func (b box) overlaps(o box) bool {
	return b.set && o.set && b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1
}

func (b box) String() string {
	return fmt.Sprintf("[%.1f,%.1f]-[%.1f,%.1f]", b.x0, b.y0, b.x1, b.y1)
}

// svgText is one text element: where its baseline starts, its size, and
// what it says.
type svgText struct {
	x, y, size float64
	s          string
}

// box is where t's glyphs fall, measured with face at t's size.
func (t svgText) box(tb *testing.T, face *opentype.Font) box {
	f := pfont.Face{Font: pfont.Font{Size: vg.Length(t.size)}, Face: face}
	ext := f.Extents()
	return box{t.x, t.y - float64(ext.Descent), t.x + float64(f.Width(t.s)), t.y + float64(ext.Ascent), true}
}

// layout is what TestPictureLegendClear reads of an SVG.
type layout struct {
	width, height float64
	face          *opentype.Font // the embedded font
	texts         []svgText
	lines         []box // the data lines (more than two vertices)
}

var (
	pxRe      = regexp.MustCompile(`font-size:([0-9.]+)px`)
	fontURLRe = regexp.MustCompile(`url\(data:font/ttf;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\)`)
	numRe     = regexp.MustCompile(`-?[0-9.]+(e-?[0-9]+)?`)
)

// parseLayout reads the SVG at path: its size, its one embedded font, its
// texts in the picture's coordinates (an SVG from gonum flips y twice:
// a text's y attribute is minus its baseline's height), and the extents
// of its data lines.
func parseLayout(t *testing.T, path string) layout {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var l layout
	fonts := fontURLRe.FindAllSubmatch(b, -1)
	if len(fonts) != 1 {
		t.Fatalf("%d embedded fonts, want 1", len(fonts))
	}
	ttf, err := base64.StdEncoding.DecodeString(string(fonts[0][1]))
	if err != nil {
		t.Fatal(err)
	}
	if l.face, err = opentype.Parse(ttf); err != nil {
		t.Fatalf("the embedded font: %v", err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var cur *svgText
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range x.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch x.Name.Local {
			case "svg":
				vb := numRe.FindAllString(attr["viewBox"], -1)
				l.width, l.height = num(t, vb[2]), num(t, vb[3])
			case "text":
				m := pxRe.FindStringSubmatch(attr["style"])
				if m == nil {
					t.Fatalf("a text without a font size: %v", attr)
				}
				cur = &svgText{x: num(t, attr["x"]), y: -num(t, attr["y"]), size: num(t, m[1])}
			case "path":
				if w, _ := styleValue(attr["style"], "stroke-width"); w != "1.5" {
					continue
				}
				if c, _ := styleValue(attr["style"], "stroke"); c == "#000000" || c == "#808080" {
					continue
				}
				ns := numRe.FindAllString(attr["d"], -1)
				if len(ns) <= 4 {
					continue // a legend's sample: two vertices
				}
				var lb box
				for i := 0; i+1 < len(ns); i += 2 {
					x, y := num(t, ns[i]), num(t, ns[i+1])
					lb = lb.union(box{x, y, x, y, true})
				}
				l.lines = append(l.lines, lb)
			}
		case xml.CharData:
			if cur != nil {
				cur.s += string(x)
			}
		case xml.EndElement:
			if x.Name.Local == "text" && cur != nil {
				l.texts = append(l.texts, *cur)
				cur = nil
			}
		}
	}
	return l
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// styleValue is key's value in an SVG style attribute.
func styleValue(style, key string) (string, bool) {
	for _, kv := range strings.Split(style, ";") {
		if k, v, ok := strings.Cut(kv, ":"); ok && k == key {
			return v, true
		}
	}
	return "", false
}
