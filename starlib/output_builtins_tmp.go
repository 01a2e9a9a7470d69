package starlib

import "go.starlark.net/starlark"

// addOutput adds help().
func addOutput(d starlark.StringDict) {
	d["help"] = starlark.NewBuiltin("help", helpBuiltin)
}
