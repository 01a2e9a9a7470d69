package main

import (
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"netscript/engine/sock/socktest"
)

// TestMain lets the test binary serve as the floor's server process.
func TestMain(m *testing.M) {
	if port := os.Getenv("NSBENCH_TEST_FLOOR_SERVE"); port != "" {
		os.Exit(runFloor([]string{"serve", port}))
	}
	os.Exit(m.Run())
}

// TestFloor runs the floor's clients against its server in another
// process, pinned to one CPU when taskset is there as the benchmark runs
// it: every mode, several times over (each echo and sink loop holds a
// scheduler slot while it blocks, and the accept loops must still run).
// The server's floorPorts TCP ports and its UDP one are held for it until the
// test ends (it binds them with SO_REUSEADDR beside the holders).
func TestFloor(t *testing.T) {
	port := socktest.ReserveRun(t, floorPorts, true)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if p, err := exec.LookPath("taskset"); err == nil {
		cmd = exec.Command(p, "-c", "0", os.Args[0], "-test.run=^$")
	}
	cmd.Env = append(os.Environ(), "NSBENCH_TEST_FLOOR_SERVE="+strconv.Itoa(port))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	ap := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	// run runs one client for d, failing the test if it does not end.
	run := func(mode string, d time.Duration) (float64, error) {
		c := floorRun{mode: mode, ap: ap, d: d, size: 16384}
		type res struct {
			rate float64
			err  error
		}
		done := make(chan res, 1)
		go func() {
			rate, err := c.run()
			done <- res{rate, err}
		}()
		select {
		case r := <-done:
			return r.rate, r.err
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no answer within 20 s", mode)
			return 0, nil
		}
	}
	// Until the server listens: a loaded machine may take seconds to
	// start the test binary again under the race detector.
	var err error
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err = run("rr", 10*time.Millisecond); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the floor server never answered: %v", err)
	}
	for _, mode := range []string{"rr", "udprr", "crr", "stream", "cc", "rr", "stream", "crr", "cc", "udprr", "rr"} {
		rate, err := run(mode, 100*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if rate <= 0 {
			t.Fatalf("%s: %v transactions/s", mode, rate)
		}
	}
}

// TestFloorUsage: bad arguments get the usage and status 2, a refused
// connection status 1, never a hang.
func TestFloorUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 2},
		{[]string{"tcp_rr", "127.0.0.1", "1", "1"}, 2},
		{[]string{"rr", "127.0.0.1", "1", "1", "100"}, 2}, // a size is for stream only
		{[]string{"stream", "127.0.0.1", "1", "1", "0"}, 2},
		{[]string{"stream", "127.0.0.1", "1", "1", "70000"}, 2},
		{[]string{"rr", "::1", "1", "1"}, 2},
		{[]string{"serve", "65535"}, 2},
		{[]string{"crr", "127.0.0.1", "65535", "1"}, 2},
		{[]string{"rr", "127.0.0.1", "x", "1"}, 2},
		{[]string{"rr", "127.0.0.1", "1", "0"}, 2},
		{[]string{"serve", "x"}, 2},
		// Ports held by the test where nothing listens: the connect is
		// refused (crr connects to the given port + 2, cc to port + 3).
		{[]string{"rr", "127.0.0.1", strconv.Itoa(socktest.Reserve(t, false)), "1"}, 1},
		{[]string{"crr", "127.0.0.1", strconv.Itoa(socktest.Reserve(t, false) - 2), "1"}, 1},
		{[]string{"cc", "127.0.0.1", strconv.Itoa(socktest.Reserve(t, false) - 3), "1"}, 1},
		{[]string{"serve", "65533"}, 2}, // PORT+3 would not be a port
	} {
		if got := runFloor(tc.args); got != tc.want {
			t.Errorf("runFloor(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}
