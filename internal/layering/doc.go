// Package layering holds netscript's import rules as a test: each layer
// knows only the layers below it (docs/internals.md draws them), starlib's
// modules know none of one another, what only reads a test's description
// builds without the data loops, and nothing under engine/ reads the
// environment or the command line.
package layering
