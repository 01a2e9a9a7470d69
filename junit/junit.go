// Package junit writes a run's checks as a JUnit XML report, the format
// Jenkins, GitLab and GitHub's test reporters read: one test suite for the
// run, one test case per check, a failure element for a check that
// failed, and the check's figures in its system-out.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"netscript/session"
)

// Suite is the run as a JUnit test suite.
type Suite struct {
	XMLName   xml.Name `xml:"testsuite"`
	Name      string   `xml:"name,attr"`
	Tests     int      `xml:"tests,attr"`
	Failures  int      `xml:"failures,attr"`
	Errors    int      `xml:"errors,attr"`
	Skipped   int      `xml:"skipped,attr"`
	Time      string   `xml:"time,attr"`
	Timestamp string   `xml:"timestamp,attr"`
	Hostname  string   `xml:"hostname,attr"`
	Cases     []Case   `xml:"testcase"`
	// SystemErr is the script's error, if it stopped with one.
	SystemErr string `xml:"system-err,omitempty"`
}

// Case is one check.
type Case struct {
	Name      string   `xml:"name,attr"`
	ClassName string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *Failure `xml:"failure,omitempty"`
	SystemOut cdata    `xml:"system-out"`
}

// cdata is text written as a CDATA section, so its lines stay lines.
type cdata struct {
	Text string `xml:",cdata"`
}

// Failure says why a check failed.
type Failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// Report is what a JUnit report is made of: the script's name, when it
// ran, the host it ran on, its checks and the error it stopped with.
type Report struct {
	Script     string
	Start, End time.Time
	Hostname   string
	Checks     []session.Check
	Err        error
}

// Write writes r as JUnit XML to w. A script that stopped with an error
// counts as one error case ("script"), so a CI report never shows green
// for a gate that did not run to its end.
func Write(w io.Writer, r Report) error {
	s := Suite{Name: r.Script, Tests: len(r.Checks), Hostname: r.Hostname,
		Time:      fmt.Sprintf("%.3f", r.End.Sub(r.Start).Seconds()),
		Timestamp: r.Start.UTC().Format("2006-01-02T15:04:05")}
	for _, c := range r.Checks {
		k := Case{Name: c.Name, ClassName: className(r.Script), Time: "0", SystemOut: cdata{figures(c)}}
		if !c.Pass {
			s.Failures++
			k.Failure = &Failure{Message: fmt.Sprintf("%s: %s, wanted %s", c.Name, c.Measured, c.Bound),
				Type: "check", Text: figures(c)}
		}
		s.Cases = append(s.Cases, k)
	}
	if r.Err != nil {
		s.Tests++
		s.Errors++
		s.Cases = append(s.Cases, Case{Name: "script", ClassName: className(r.Script), Time: "0",
			Failure: &Failure{Message: r.Err.Error(), Type: "error", Text: r.Err.Error()}})
		s.SystemErr = r.Err.Error()
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	e := xml.NewEncoder(w)
	e.Indent("", "  ")
	if err := e.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// figures is a check's measured value, bound and where it was stated, as
// its system-out shows them.
func figures(c session.Check) string {
	s := fmt.Sprintf("measured: %s\nbound: %s\n", c.Measured, c.Bound)
	if c.Value != nil {
		s += fmt.Sprintf("value: %g\n", *c.Value)
	}
	if c.Unit != "" {
		s += "unit: " + c.Unit + "\n"
	}
	if c.Test != "" {
		s += "test: " + c.Test + "\n"
	}
	if c.Brand != "" {
		s += "brand: " + c.Brand + "\n"
	}
	if c.Error != "" {
		s += "error: " + c.Error + "\n"
	}
	if c.Where != "" {
		s += "at: " + c.Where + "\n"
	}
	return s
}

// className is the class name JUnit consumers group a run's cases by:
// "netscript." and the script's file name without its directory and .star.
func className(script string) string {
	return "netscript." + strings.TrimSuffix(filepath.Base(script), ".star")
}
