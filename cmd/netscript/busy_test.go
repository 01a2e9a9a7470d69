package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"netscript/record"
)

// runBusy runs a script of scripts/ as a user on a loaded machine would
// see it pass: with --keep-going and a record, so that a test of 0.1 s
// that completed no transaction (the machine was busy, not broken) is
// kept as a failed result instead of ending the script. It fails t for
// any other failure, and for an exit status that does not match what
// the record holds: 0 with no failed test, 3 (exitTestsFailed) with
// some. It returns the run and its record.
func runBusy(t *testing.T, args ...string) (ran, *record.Run) {
	t.Helper()
	rec := filepath.Join(t.TempDir(), "run.json")
	r := netscript(t, 3*time.Minute, append([]string{"--keep-going", "--record", rec}, args...)...)
	if r.code != 0 && r.code != exitTestsFailed {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	run, err := record.ReadRun(rec)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, rr := range run.Results {
		if !rr.Result.Failed() {
			continue
		}
		failed++
		if e := rr.Result.Error; !strings.Contains(e, "no transaction completed") && !strings.Contains(e, "no byte") {
			t.Errorf("%s %q failed, not for want of work: %s", rr.Result.Test, rr.Result.Brand, e)
		}
	}
	if (failed > 0) != (r.code == exitTestsFailed) {
		t.Errorf("exit %d with %d failed tests\nstderr:\n%s", r.code, failed, r.stderr)
	}
	if failed > 0 {
		t.Logf("%d of %d tests did no work on this busy machine: %s", failed, len(run.Results), strings.TrimSpace(r.stderr))
	}
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	return r, run
}
