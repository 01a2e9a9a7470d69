// Package record holds the netscript-run/1 record format: what `netscript
// --record FILE` writes (the script's text and hash, its args, env() of the
// machine, every result its tests produced, partial ones included) and what
// `netscript show` and `netscript replay` read back, lay out and compare.
//
// A Recorder collects results while a script runs (its Add is a
// session.ResultFunc); NewRun, Encode, ReadRun and DecodeRun write and read
// the record; Summary, Tables, ReplayTable and EnvChanges say what it holds.
package record
