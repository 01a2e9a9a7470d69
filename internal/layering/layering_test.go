package layering

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// list runs go list -json over the module and returns its packages.
func list(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	cmd.Dir = "../.."
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v: %s", err, errb.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// layers are the ranks, lowest first: a package may import only packages
// of a lower rank, or of its own rank where the group allows it (the
// engine's packages import one another; starlib's modules do not). The
// first prefix that matches a package names its rank.
var layers = []struct {
	rank     int
	prefix   string
	siblings bool // may import packages of the same rank
}{
	{0, "netscript/engine/", true},
	{1, "netscript/internal/nearest", false},
	{1, "netscript/internal/serveadvice", false},
	{1, "netscript/internal/stoptest", false},
	{1, "netscript/internal/doccheck", false},
	{1, "netscript/internal/imagebuild", false},
	{1, "netscript/fleet", false},  // agents and mesh plans, no Kubernetes
	{2, "netscript/fleet/", false}, // the finders: the Kubernetes API, DNS
	{1, "netscript/internal/leakcheck", false},
	{1, "netscript/session/", false},
	{2, "netscript/session", false},
	{3, "netscript/starlib/module", false},
	{4, "netscript/starlib/values", false},
	{4, "netscript/starlib/thread", false},
	{6, "netscript/starlib/", false}, // the modules
	{7, "netscript/starlib", false},  // the registration table
	{8, "netscript/script", false},   // front ends' shared parts: running a script, the record format
	{8, "netscript/record", false},
	{8, "netscript/internal/startest", false},
	{8, "netscript/internal/kubetest", false},
	{8, "netscript/junit", false},                      // a run's checks as JUnit XML, for the script front end
	{8, "netscript/monitor", false},                    // the monitor's loop and metrics, below its subcommand
	{9, "netscript/internal/kubetest/kasbuild", false}, // kube-apiserver's build, for kubetest and make
	{9, "netscript/repl", false},
	{9, "netscript/report", false},
	{9, "netscript/netperfcli", false},
	{10, "netscript/cmd/", true},
	{10, "netscript/docs", false},
	{10, "netscript/deploy/", false}, // the manifests' tests
	{10, "netscript/internal/layering", false},
}

// rankOf returns the rank of a package of the module, and whether it may
// import packages of its own rank.
func rankOf(path string) (int, bool, bool) {
	for _, l := range layers {
		if path == l.prefix || (strings.HasSuffix(l.prefix, "/") && strings.HasPrefix(path, l.prefix)) {
			return l.rank, l.siblings, true
		}
	}
	return 0, false, false
}

// TestLayers: no package of the module imports one of a higher layer, nor
// one of its own layer unless the layer allows it; every package has a
// layer, so a new one is placed on purpose.
func TestLayers(t *testing.T) {
	for _, p := range list(t, "./...") {
		rp, siblings, ok := rankOf(p.ImportPath)
		if !ok {
			t.Errorf("%s has no layer in layering_test.go: add it where it belongs", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, "netscript/") {
				continue
			}
			ri, _, ok := rankOf(imp)
			switch {
			case !ok:
				continue // reported as a package of its own
			case ri > rp:
				t.Errorf("%s (layer %d) imports %s, of the higher layer %d", p.ImportPath, rp, imp, ri)
			case ri == rp && !siblings:
				t.Errorf("%s imports %s of its own layer %d, which the layer does not allow", p.ImportPath, imp, rp)
			}
		}
	}
}

// TestDescriptionWithoutLoops: output and help read a test's description
// only; they must build without the data loops.
func TestDescriptionWithoutLoops(t *testing.T) {
	for _, p := range list(t, "netscript/starlib/output", "netscript/starlib/help", "netscript/engine/spec") {
		for _, d := range p.Deps {
			if d == "netscript/engine/workload" || d == "netscript/engine/mux" || d == "netscript/engine/datapath" {
				t.Errorf("%s depends on the data loops: %s", p.ImportPath, d)
			}
		}
	}
}

// TestEngineReadsNoEnvironment: the engine is handed its token, limits and
// options; no file under engine/ reads the environment or the command
// line.
func TestEngineReadsNoEnvironment(t *testing.T) {
	banned := map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "Args": true, "ExpandEnv": true}
	fset := token.NewFileSet()
	n := 0
	for _, p := range list(t, "./engine/...") {
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			file, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			n++
			osName := ""
			for _, im := range file.Imports {
				if im.Path.Value == `"os"` {
					osName = "os"
					if im.Name != nil {
						osName = im.Name.Name
					}
				}
			}
			if osName == "" {
				continue
			}
			ast.Inspect(file, func(x ast.Node) bool {
				sel, ok := x.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && banned[sel.Sel.Name] {
					t.Errorf("%s: os.%s: the engine is handed what it needs; the front end reads the environment and the command line", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
		}
	}
	if n == 0 {
		t.Fatal("no engine files were read")
	}
}
