package starlib_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"

	"netscript/engine/sock/socktest"
	"netscript/internal/startest"
	"netscript/script"
	"netscript/starlib"
)

// TestStarFiles runs every testdata/*.star file; each loads assert.star and
// checks the Starlark surface from a script's point of view. A script that
// must name source ports takes them from args["ports"]: two ports the
// kernel chose, held on 127.0.0.1 (TCP and UDP) until the file has run, so
// they are free on 127.0.0.2.
func TestStarFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/*.star")
	if err != nil || len(files) == 0 {
		t.Fatalf("no .star tests found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			ports := fmt.Sprintf("%d,%d", socktest.Reserve(t, true), socktest.Reserve(t, true))
			runStarFile(t, f, map[string]string{"ports": ports})
		})
	}
}

// runStarFile runs the .star test f with args as the script's arguments
// and assert.star loadable; a failure reports the Starlark backtrace.
func runStarFile(t *testing.T, f string, args map[string]string) {
	t.Helper()
	th, _ := startest.NewThread(t)
	pre := script.Globals(args)
	th.Load = func(th *starlark.Thread, module string) (starlark.StringDict, error) {
		if module == "assert.star" {
			return starlarktest.LoadAssertModule()
		}
		return script.LoadFunc(pre)(th, module)
	}
	sc, err := script.ReadScript(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := starlib.ExecFile(th, sc.Name, sc.Src, pre); err != nil {
		if ee, ok := err.(*starlark.EvalError); ok {
			t.Fatal(ee.Backtrace())
		}
		t.Fatal(err)
	}
}
