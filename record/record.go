package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/sysinfo"
	"netscript/session"
	"netscript/starlib/output"
	"netscript/starlib/values"
)

// Format names the layout of a run record; ReadRun refuses others.
const Format = "netscript-run/1"

// Run statuses.
const (
	RunOK           = "ok"
	RunError        = "error"         // the script stopped with an error
	RunInterrupted  = "interrupted"   // Ctrl-C or SIGTERM
	RunFailed       = "failed"        // the script ran to its end, past tests that failed (keep_going, --keep-going)
	RunChecksFailed = "checks failed" // the script ran to its end, no test failed, and a check() failed
)

// Run is one run of a script as `netscript --record FILE` keeps it: enough
// to run it again (script text, args) and to explain a different figure
// (the machine it ran on, every result).
type Run struct {
	Format  string            `json:"format"` // Format
	Script  RunScript         `json:"script"`
	Args    map[string]string `json:"args"`
	Env     sysinfo.Info      `json:"env"` // the client's env()
	Start   time.Time         `json:"start"`
	End     time.Time         `json:"end"`
	Status  string            `json:"status"` // RunOK, RunError, RunInterrupted, RunFailed
	Error   string            `json:"error,omitempty"`
	Results []RunResult       `json:"results"`
	// ReplayOf is the record a replay ran again (netscript --record NEW
	// replay OLD), so a report can set old and new side by side; nil for a
	// run that was not a replay.
	ReplayOf *Run `json:"replay_of,omitempty"`

	// RunID is the run's id, as every --json-lines line of the run has it.
	RunID string `json:"run_id,omitempty"`
	// Target is where the tests that named no host went (--host,
	// $NETSCRIPT_HOST); null: the embedded server. replay aims there again.
	Target *session.Target `json:"target,omitempty"`
	// Checks are the check()s the script stated, in order, each with
	// what it measured, its bound and whether it passed.
	Checks []session.Check `json:"checks,omitempty"`
}

// RunScript is the program a run ran.
type RunScript struct {
	Name   string `json:"name"` // file name as given, "<command-line>" or "<stdin>"
	Text   string `json:"text"`
	SHA256 string `json:"sha256"` // of Text, hex
}

// RunResult is one result the run produced, in the order tests ended.
type RunResult struct {
	Result *result.Result `json:"result"`
	// Partial: the test was cut short (Ctrl-C, the server went away) and
	// Result is what it measured until then; Error says why.
	Partial bool   `json:"partial,omitempty"`
	Error   string `json:"error,omitempty"`
	// ServerEnv is env() of the server that ran the other end of the test,
	// as it sent it over the control protocol; null for a test without a
	// control connection.
	ServerEnv *sysinfo.Info `json:"server_env"`
}

// NewRun starts the record of a run of sc on the machine info describes.
func NewRun(sc *session.Script, info sysinfo.Info) *Run {
	sum := sha256.Sum256(sc.Src)
	args := sc.Args
	if args == nil {
		args = map[string]string{}
	}
	return &Run{
		Format: Format,
		Script: RunScript{Name: sc.Name, Text: string(sc.Src), SHA256: hex.EncodeToString(sum[:])},
		Args:   args,
		Env:    info,
		Start:  time.Now(),
		Status: RunOK,
	}
}

// Recorder collects the results of a run as tests end; set the script's
// session.Session.OnResult to its Add. It is safe for tests that end at once on several threads.
type Recorder struct {
	mu      sync.Mutex
	results []RunResult
}

// Add keeps a result; err, if not nil, says why the test was cut short.
func (r *Recorder) Add(res *result.Result, err error) {
	rr := RunResult{Result: res}
	if res != nil {
		rr.ServerEnv = res.ServerEnv
	}
	if err != nil {
		// A failed result kept going past (res.Error) is not a partial
		// one: its figures read as None, and Error says why.
		rr.Partial, rr.Error = !res.Failed(), err.Error()
	}
	r.mu.Lock()
	r.results = append(r.results, rr)
	r.mu.Unlock()
}

// Results returns what was kept so far.
func (r *Recorder) Results() []RunResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RunResult(nil), r.results...)
}

// Encode writes the run as one indented JSON document.
func (run *Run) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // keep "<command-line>" readable
	enc.SetIndent("", "  ")
	return enc.Encode(run)
}

// ReadRun reads a record written by --record. Anything else (not JSON,
// another format, a script that does not match its hash) is an error that
// says so in one line.
func ReadRun(path string) (*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("record %s: no such file", path)
		}
		return nil, fmt.Errorf("record %s: %w", path, err)
	}
	run, err := DecodeRun(b)
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", path, err)
	}
	return run, nil
}

// DecodeRun parses and checks a record.
func DecodeRun(b []byte) (*Run, error) {
	var run Run
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&run); err != nil {
		var he *histError
		if errors.As(err, &he) {
			return nil, fmt.Errorf("corrupt record: %v", he)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not a netscript record: %v at byte %d", se, se.Offset)
		}
		return nil, fmt.Errorf("not a netscript record: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a netscript record: text after the JSON document")
	}
	switch {
	case run.Format == "":
		return nil, fmt.Errorf("not a netscript record: no \"format\": %q field", Format)
	case run.Format != Format:
		return nil, fmt.Errorf("record format %q, this netscript reads %q", run.Format, Format)
	case run.Script.Text == "" && run.Script.SHA256 == "":
		return nil, fmt.Errorf("corrupt record: no script")
	}
	sum := sha256.Sum256([]byte(run.Script.Text))
	if hex.EncodeToString(sum[:]) != run.Script.SHA256 {
		return nil, fmt.Errorf("corrupt record: the script text does not match its sha256 %s", run.Script.SHA256)
	}
	for i, r := range run.Results {
		if r.Result == nil || r.Result.Test == "" {
			return nil, fmt.Errorf("corrupt record: results[%d] has no test", i)
		}
	}
	return &run, nil
}

// Summary is a few lines on what ran, when, on what and with what end.
func (run *Run) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (sha256 %.12s)", run.Script.Name, run.Script.SHA256)
	if len(run.Args) > 0 {
		keys := make([]string, 0, len(run.Args))
		for k := range run.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%s", k, run.Args[k])
		}
	}
	fmt.Fprintf(&b, "\nran %s for %.1f s: %s", run.Start.Format(time.RFC3339), run.End.Sub(run.Start).Seconds(), run.Status)
	if run.Error != "" {
		fmt.Fprintf(&b, " (%s)", run.Error)
	}
	if run.Target != nil {
		fmt.Fprintf(&b, ", tests aimed at %s", run.Target)
	}
	fmt.Fprintf(&b, ", %d results\non %s", len(run.Results), run.Env)
	if run.Env.Hostname != "" {
		fmt.Fprintf(&b, " (%s)", run.Env.Hostname)
	}
	return b.String()
}

// Tables lays a run's results out with table(), one table per kind of
// test (their default columns differ), in the order they first ran. A
// partial result is branded so.
func (run *Run) Tables() (string, error) {
	var order []string
	groups := map[string][]starlark.Value{}
	for _, rr := range run.Results {
		res := *rr.Result
		if rr.Partial {
			res.Brand = strings.TrimSpace(res.Brand + " (partial)")
		}
		if _, ok := groups[res.Test]; !ok {
			order = append(order, res.Test)
		}
		groups[res.Test] = append(groups[res.Test], values.NewResult(&res))
	}
	var parts []string
	for _, test := range order {
		rows := groups[test]
		t, err := output.Table(rows, output.TableDefaults(rows))
		if err != nil {
			return "", err
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "\n\n"), nil
}
