package client

import (
	"context"
	"net/netip"
	"time"

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
	port := s.DataPort
	if len(s.DataPorts) > 0 {
		port = s.DataPorts[0] // to resolve the host; each flow has its own port
	}
	data, err := sock.Resolve(ctx, host, port, s.Family)
	if err != nil {
		return nil, &spec.OptionError{Option: "host", Err: err}
	}
	r := &run{spec: s, opt: opt, ctrl: netip.AddrPortFrom(data.Addr(), 0)}
	r.spec.Host = host
	w, t0, done, err := r.openFlows(ctx, data.Addr(), int(data.Port()))
	if err != nil {
		return nil, err
	}
	defer done()
	lv := r.liveness()               // the stall check; no heartbeats without a control connection
	lv.start = later(time.Now(), t0) // the flows start at t0, if it is set
	stallErr := r.measure(ctx, w, nil, t0, lv)
	r.finish(w, stallErr)
	res := r.build(w)
	r.figures(res, w)
	stalled, _ := stallErr.(*StallError)
	if err := r.outcome(ctx, res, stalled, w.firstErr()); err != nil {
		return res, err
	}
	return res, nil
}

// openFlows opens the test's data connections (or sockets) toward addr's
// port, with no control connection of netscript's to set them up, takes
// their threads, and picks the instant the measured interval begins; done
// gives the threads back and closes the flows.
func (r *run) openFlows(ctx context.Context, addr netip.Addr, port int) (w *worker, t0 time.Time, done func(), err error) {
	w, err = newWorker(&r.spec, endpoint{host: addr, port: port})
	if err != nil {
		return nil, time.Time{}, nil, err
	}
	release, err := r.opt.takeThreads(w.threads())
	if err != nil {
		w.close()
		return nil, time.Time{}, nil, err
	}
	r.w = w
	done = func() {
		release()
		w.close()
	}
	if t0, err = r.startTime(ctx, w); err != nil {
		done()
		return nil, time.Time{}, nil, err
	}
	return w, t0, done, nil
}
