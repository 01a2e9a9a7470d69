package starlib

import "go.starlark.net/starlark"

// addStatistics adds confidence(), compare() and the stats module.
func addStatistics(d starlark.StringDict) {}
