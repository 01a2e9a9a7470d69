package main

import (
	"strings"
	"testing"
)

// TestParseFileFlags: --record and --token-file take their file as the
// next argument or after =, in either dash style, and a missing or empty
// name is one clear error.
func TestParseFileFlags(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		record, tok  string
		rest, errHas string
	}{
		{args: []string{"--record", "r.json", "s.star"}, record: "r.json", rest: "s.star"},
		{args: []string{"-record", "r.json", "s.star"}, record: "r.json", rest: "s.star"},
		{args: []string{"--record=r.json", "s.star"}, record: "r.json", rest: "s.star"},
		{args: []string{"--token-file", "t", "--record=r", "s.star"}, record: "r", tok: "t", rest: "s.star"},
		{args: []string{"--token-file=t", "s.star"}, tok: "t", rest: "s.star"},
		{args: []string{"--record"}, errHas: "--record needs a file name"},
		{args: []string{"--record="}, errHas: "--record needs a file name"},
		{args: []string{"--record", ""}, errHas: "--record needs a file name"},
		{args: []string{"--token-file"}, errHas: "--token-file needs a file name"},
		{args: []string{"--recordx", "f"}, errHas: "unknown flag --recordx"},
	} {
		o, rest, err := parseFlags(tc.args)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.errHas)
			}
			continue
		}
		if err != nil || o.record != tc.record || o.tokenFile != tc.tok || strings.Join(rest, " ") != tc.rest {
			t.Errorf("%q: record %q token %q rest %q err %v", tc.args, o.record, o.tokenFile, rest, err)
		}
	}
}
