package client

import (
	"context"
	"fmt"
	"net/netip"

	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
)

// runNoControl runs a test with no control connection (netperf's -N): the
// client talks straight to a standing data endpoint at host:data_port
// (`netscript serve --data WORKLOAD:PORT`). Only the client's figures
// exist; the remote ones are None and the result says why.
func runNoControl(ctx context.Context, s spec.Spec, opt Options) (*result.Result, error) {
	host := s.Host
	if host == "" {
		host = sock.Loopback(s.Family).String()
	}
	data, err := sock.Resolve(ctx, host, s.DataPort, s.Family)
	if err != nil {
		return nil, &spec.OptionError{Option: "host", Msg: err.Error()}
	}
	r := &run{spec: s, opt: opt, ctrl: netip.AddrPortFrom(data.Addr(), 0)}
	r.spec.Host = host
	w, err := newWorker(&r.spec, data)
	if err != nil {
		return nil, err
	}
	defer w.close()
	release := opt.Threads.Acquire(1)
	defer release()
	r.measure(ctx, w, nil)
	w.finish(drainTimeout)
	res := r.build(w)
	r.figures(res, w)
	if err := w.loop().Err; err != nil {
		return res, &TestError{Err: fmt.Errorf("%s: %w", s.Workload.Builtin(), err), Partial: res}
	}
	if ctx.Err() != nil {
		return res, &TestError{Err: fmt.Errorf("interrupted: %w", ctx.Err()), Partial: res}
	}
	return res, nil
}
