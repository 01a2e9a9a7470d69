package starlib_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"netscript/engine/client/netservertest"
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
			runStarFile(t, f, map[string]string{"port": fmt.Sprint(port), "port6": fmt.Sprint(port6)})
		})
	}
}
