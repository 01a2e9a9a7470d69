package starlib_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"

	"netscript/engine/client/netservertest"
	"netscript/starlib"
	"netscript/starlib/internal/startest"
	"netscript/starlib/script"
)

// TestNetserverStarFiles runs testdata/netserver/*.star against real
// netservers (netperf 2.7.1, from ../shared/peers beside the project):
// args["port"] is one on 127.0.0.1, args["port6"] one on ::1.
func TestNetserverStarFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/netserver/*.star")
	if err != nil || len(files) == 0 {
		t.Fatalf("no .star tests found: %v", err)
	}
	port, port6 := netservertest.Start(t, "127.0.0.1"), netservertest.Start(t, "::1")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			th, _ := startest.NewThread(t)
			pre := script.Globals(map[string]string{"port": fmt.Sprint(port), "port6": fmt.Sprint(port6)})
			th.Load = func(th *starlark.Thread, module string) (starlark.StringDict, error) {
				if module == "assert.star" {
					return starlarktest.LoadAssertModule()
				}
				return script.LoadFunc(pre)(th, module)
			}
			sc, err := script.ReadScript(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := starlib.ExecFile(th, sc.Name, sc.Src, pre); err != nil {
				if ee, ok := err.(*starlark.EvalError); ok {
					t.Fatal(ee.Backtrace())
				}
				t.Fatal(err)
			}
		})
	}
}
