package plot_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// TestHeatmap: a mesh's matrix as a heat map: every value is written in
// its cell, the numbered columns and rows in numeric order, a missing
// cell left out; the mistakes a script can make are named.
func TestHeatmap(t *testing.T) {
	g := pictureGlobals(t)
	out, err := runPicture(t, g, `
rates = {(c, s): 100.0 * c + s for c in range(1, 4) for s in range(1, 4) if c != s}
rates[(3, 1)] = None
pts = [{"client": c, "server": s, "rate": rates[(c, s)]} for c, s in rates]
out = heatmap(pts, x="server", y="client", z="rate", file=dir + "/mesh.svg", title="mesh")
`)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := starlark.AsString(out)
	dir, _ := starlark.AsString(g["dir"])
	if path != filepath.Join(dir, "mesh.svg") {
		t.Errorf("returned %s", out)
	}
	s := readSVG(t, path)
	checkFontsEmbedded(t, path)
	for _, want := range []string{"102", "103", "201", "203", "302", "1", "2", "3", "server", "client", "mesh (102 to 302)"} {
		if !slices.Contains(s.texts, want) {
			t.Errorf("no text %q in %v", want, s.texts)
		}
	}
	if slices.Contains(s.texts, "301") {
		t.Error("the cell of None has a value")
	}
	for _, c := range []struct{ code, want string }{
		{`heatmap([], x="a", y="b", z="c", file=dir + "/e.svg")`, "empty"},
		{`heatmap([{"a": 1, "b": 1}], x="a", y="b", z="c", file=dir + "/e.svg")`, `points[0]: no key "c"`},
		{`heatmap([{"a": 1, "b": 1, "c": "x"}], x="a", y="b", z="c", file=dir + "/e.svg")`, "not a number or None"},
		{`heatmap([{"a": 1, "b": 1, "c": None}], x="a", y="b", z="c", file=dir + "/e.svg")`, "no cell has a value"},
		{`heatmap([{"a": 1, "b": 1, "c": 1}], x="a", y="b", z="c", file=dir + "/e.txt")`, ".txt"},
	} {
		if _, err := runPicture(t, g, c.code); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.code, err, c.want)
		}
	}
}
