package session

// Script is a program a session runs: a file, a -c snippet or stdin, with
// its arguments. A record keeps it (and runs it again); the script front
// end reads and runs it.
type Script struct {
	Name string            // file name, or "<command-line>" for -c, "<stdin>"
	Src  []byte            // the program text
	Args map[string]string // NAME=VALUE pairs, as the dict `args`

	// Modules are the texts of the modules load() read while the script
	// ran, by the name it gave them: an error's excerpt quotes only these
	// and Src, never a file it did not read.
	Modules map[string][]byte `json:"-"`
}
