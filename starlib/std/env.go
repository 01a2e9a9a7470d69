package std

import (
	"go.starlark.net/starlark"

	"netscript/engine/sysinfo"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// envBuiltin: env() describes this machine and this netscript: kernel, CPU,
// the sysctls that move results, versions. A record keeps it.
func envBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	env, err := thread.Session(th)
	if err != nil {
		return nil, err
	}
	return newEnvInfo(env.SysInfo()), nil
}

// newEnvInfo wraps a machine description as the read-only value env()
// returns; str() of it is the one-line summary.
func newEnvInfo(info sysinfo.Info) *values.Record {
	return values.NewRecord("env", &info, info.String)
}
