package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"netscript/session"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/starlib/values"
)

// newRunID returns a run's id: 16 random hex digits, in every JSON line and
// in the record of the run.
func newRunID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// jsonLines writes --json-lines: one JSON object per line, each written
// whole and flushed when its event happens (a test ended, an interim
// sample was taken), so `tail -f | jq` follows a long run. It is safe for
// tests that end at once on several threads.
type jsonLines struct {
	mu    sync.Mutex
	w     *bufio.Writer
	c     io.Closer // nil for stdout
	runID string
	seq   int
	err   error // the first write error; later lines are dropped
}

// openJSONLines opens path for --json-lines ("-": stdout), truncating it,
// before anything runs.
func openJSONLines(path, runID string) (*jsonLines, error) {
	if path == "-" {
		return &jsonLines{w: bufio.NewWriter(os.Stdout), runID: runID}, nil
	}
	f, err := session.CreateNamed(path, true)
	if err != nil {
		return nil, err
	}
	return &jsonLines{w: bufio.NewWriter(f), c: f, runID: runID}, nil
}

// jsonLine is the frame of every line; Result or Sample holds the to_dict()
// form of what it reports.
type jsonLine struct {
	RunID   string          `json:"run_id"`
	Seq     int             `json:"seq"`  // 1, 2, ... over the run's lines
	Kind    string          `json:"kind"` // "result", "interim" or "check"
	Time    time.Time       `json:"time"` // when the line was written, UTC
	Test    string          `json:"test,omitempty"`
	Brand   string          `json:"brand,omitempty"`
	Units   string          `json:"units,omitempty"` // interim: of sample.throughput
	Partial *bool           `json:"partial,omitempty"`
	Error   *string         `json:"error,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Sample  json.RawMessage `json:"sample,omitempty"`
	Check   *session.Check  `json:"check,omitempty"`
}

// Result writes the line of a finished test (session.Session.OnResult); err, if not
// nil, says why it was cut short and res is what it measured until then.
func (j *jsonLines) Result(res *result.Result, err error) {
	d, jerr := values.ResultJSON(res)
	partial := err != nil && !res.Failed() // a failed result's error is its own
	l := jsonLine{Kind: "result", Test: res.Test, Brand: res.Brand, Partial: &partial, Result: json.RawMessage(d)}
	if jerr != nil {
		msg := "encoding the result: " + jerr.Error()
		l.Error, l.Result = &msg, nil
	} else if err != nil {
		msg := err.Error()
		l.Error = &msg
	}
	j.write(l)
}

// Failed writes the line of a test that failed with nothing measured
// (session.Session.OnFailed): a result line, partial, with the error and no result.
func (j *jsonLines) Failed(test, brand string, err error) {
	partial, msg := true, err.Error()
	j.write(jsonLine{Kind: "result", Test: test, Brand: brand, Partial: &partial, Error: &msg})
}

// Interim writes the line of one interim sample (session.Session.OnInterim).
func (j *jsonLines) Interim(i client.Interim) {
	d, err := values.SampleJSON(result.Sample{T: i.T, Throughput: i.Throughput, Interval: i.Interval,
		Retransmits: i.Retransmits, Cwnd: i.Cwnd, RTT: i.RTT, RcvRTT: i.RcvRTT})
	if err != nil {
		return
	}
	j.write(jsonLine{Kind: "interim", Test: i.Test, Brand: i.Brand, Units: i.Units, Sample: json.RawMessage(d)})
}

// Check writes the line of a check() as the script states it
// (session.Session.OnCheck): kind "check", with its name, measured value,
// bound and whether it passed.
func (j *jsonLines) Check(c session.Check) {
	j.write(jsonLine{Kind: "check", Test: c.Test, Brand: c.Brand, Check: &c})
}

func (j *jsonLines) write(l jsonLine) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	j.seq++
	l.RunID, l.Seq, l.Time = j.runID, j.seq, time.Now().UTC()
	b, err := json.Marshal(l)
	if err == nil {
		b = append(b, '\n')
		if _, err = j.w.Write(b); err == nil {
			err = j.w.Flush()
		}
	}
	j.err = err
}

// Close flushes and closes the file and returns the first write error.
func (j *jsonLines) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.w.Flush(); j.err == nil {
		j.err = err
	}
	if j.c != nil {
		if err := j.c.Close(); j.err == nil {
			j.err = err
		}
	}
	if j.err != nil {
		return fmt.Errorf("writing: %w", j.err)
	}
	return nil
}
