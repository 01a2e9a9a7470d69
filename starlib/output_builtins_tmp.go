package starlib

import "go.starlark.net/starlark"

// addOutput adds env() and help().
func addOutput(d starlark.StringDict) {
	d["help"] = starlark.NewBuiltin("help", helpBuiltin)
	d["env"] = starlark.NewBuiltin("env", envBuiltin)
}
