package docs

import "testing"

// TestBlocks: which fenced blocks the example runner runs, and how.
func TestBlocks(t *testing.T) {
	cases := []struct {
		name, text string
		kind       Kind
		fails      bool
		skip       string
	}{
		// A shell block that calls the binary runs.
		{"shell", "```sh\nbin/netscript -c 'print(1)'\n```\n", KindShell, false, ""},
		// So does one that calls it after an environment assignment or a pipe.
		{"env", "```sh\nNETSCRIPT_TOKEN=x bin/netscript serve &\n```\n", KindShell, false, ""},
		{"pipe", "```sh\necho 'print(1)' | bin/netscript\n```\n", KindShell, false, ""},
		// Naming netscript in a comment is not running it.
		{"make", "```sh\nmake demo   # builds bin/netscript\n```\n", KindOther, false, "a shell block that does not run netscript"},
		// A Starlark block is a script.
		{"script", "```python\nprint(tcp_rr())\n```\n", KindScript, false, ""},
		// The markers on the first line.
		{"not run", "```python\n# not run: needs a lab host\ntcp_rr(host=\"198.18.0.2\")\n```\n", KindOther, false, "needs a lab host"},
		{"fails", "```python\n# fails: on purpose\nparallel(1)\n```\n", KindScript, true, ""},
		// Output is never run.
		{"text", "```text\nTest Request\n```\n", KindOther, false, `a "text" block, not an example`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bs, err := Blocks("x.md", "intro\n\n"+c.text)
			if err != nil || len(bs) != 1 {
				t.Fatalf("got %d blocks, %v", len(bs), err)
			}
			b := bs[0]
			if b.Kind != c.kind || b.Fails != c.fails || b.Skip != c.skip || b.Line != 3 {
				t.Errorf("got kind %d fails %v skip %q line %d", b.Kind, b.Fails, b.Skip, b.Line)
			}
		})
	}
	if _, err := Blocks("x.md", "```sh\nbin/netscript\n"); err == nil || err.Error() != "x.md:1: a code block that is never closed" {
		t.Errorf("an unclosed fence: %v", err)
	}
}
