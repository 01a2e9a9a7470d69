// Package agent runs a test's client side on a daemon for a script (the
// client= option): Run is the script's side, which asks the daemon at
// spec.Client to run the test toward spec.Host and brings the result back;
// Agent is the daemon's side, which runs it there, only toward netscript
// daemons and only from the machine's own source addresses; Off is a daemon's side that refuses. Between them go the
// control protocol's RunClient, ClientReady, Sync, Go, Stop and
// ClientResult (package proto).
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"netscript/engine/client"
	"netscript/engine/hist"
	"netscript/engine/proto"
	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
)

// syncRounds is how many Sync round trips RunRemote times to learn the
// round trip to the client daemon (it keeps the shortest).
const syncRounds = 5

// remoteLead is how far beyond the round trip to the daemon the common
// start of remote tests is set: room for Go to arrive and the daemon's
// threads to wake.
const remoteLead = 5 * time.Millisecond

// Run runs the test s with its client side on the daemon at s.Client, toward the server at s.Host as that daemon reaches
// it, and returns the daemon's result (with its histograms, so results
// aggregate exactly). The daemon sets the test up and says so; RunRemote
// times a few round trips to it, arrives at opt.Gate if one is set (tests
// in parallel() start together), and tells the daemon to start after a
// delay that puts its start at the common instant: the instant less half
// the round trip. Cancelling ctx stops the test on the daemon and returns
// what it measured.
func Run(ctx context.Context, s spec.Spec, opt client.Options) (*result.Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	host, port, err := splitHostPort(s.Client)
	if err != nil {
		return nil, &spec.OptionError{Option: "client", Err: err}
	}
	ctrl, err := sock.Resolve(ctx, host, port, sock.Auto)
	if err != nil {
		return nil, &spec.OptionError{Option: "client", Err: err}
	}
	pc, _, err := client.Dial(ctx, ctrl, s.ConnectTimeout, opt.Token)
	if err != nil {
		return nil, dialError(err)
	}
	defer pc.Close()
	name := ctrl.String()
	fail := func(err error) error { return fmt.Errorf("client %s: %w", name, err) }

	fwd := s
	fwd.Client = ""
	if err := pc.Send(proto.TypeRunClient, proto.RunClient{Test: proto.TestSpecFrom(&fwd)}, client.ControlTimeout); err != nil {
		return nil, fail(err)
	}
	// The daemon connects its flows to the server before it is ready.
	setup := 2*client.ControlTimeout + s.ConnectTimeout*time.Duration(min(s.FlowCount(), 4))
	if err := expectCtx(ctx, pc, proto.TypeClientReady, &proto.ClientReady{}, setup); err != nil {
		return nil, fail(remoteSetupError(err))
	}
	rtt, err := measureRTT(pc)
	if err != nil {
		return nil, fail(err)
	}
	t0 := time.Now().Add(rtt + remoteLead)
	if opt.Gate != nil {
		if t0, err = opt.Gate.Arrive(ctx, rtt+remoteLead); err != nil {
			return nil, err
		}
	}
	delay := max(time.Until(t0)-rtt/2, 0)
	if err := pc.Send(proto.TypeGo, proto.Go{DelayNs: int64(delay)}, client.ControlTimeout); err != nil {
		return nil, fail(err)
	}
	send := sender()
	stopOnCancel := context.AfterFunc(ctx, func() {
		send(func() error { return pc.Send(proto.TypeStop, proto.Stop{}, time.Second) })
	})
	defer stopOnCancel()
	wait := time.Duration(0) // a test that ends by count has no bound
	if s.Duration > 0 {
		wait = delay + s.Duration + 2*client.ControlTimeout + spec.StreamDrain
	}
	// The daemon is asked for a sign of life while the test runs (live.go).
	bound, on := s.LivenessBound()
	cr, err := awaitResult(pc, wait, bound, on, send)
	if err != nil {
		var sd *SilentDaemonError
		if errors.As(err, &sd) {
			send(func() error { return pc.Send(proto.TypeStop, proto.Stop{}, time.Second) })
		}
		return nil, fail(err)
	}
	res, err := decodeClientResult(&cr)
	if err != nil {
		return nil, fail(err)
	}
	res.Config.Client = name
	if cr.Error != "" {
		return res, &client.TestError{Err: fail(errors.New(cr.Error)), Partial: res}
	}
	if ctx.Err() != nil {
		return res, &client.TestError{Err: fmt.Errorf("interrupted: %w", ctx.Err()), Partial: res}
	}
	if nw := client.NoWork(&s, res); nw != nil {
		// A daemon of the release before this check sends no error.
		return res, &client.TestError{Err: fail(nw), Partial: res}
	}
	return res, nil
}

// dialError is a failure to reach the client daemon as the test's error.
// A token refused either way, or an endpoint that is no daemon, is a
// mistake in how the test was asked for (an OptionError, which ends a
// script whatever it asked); a daemon that refused the connection, did
// not answer or went away is the test's failure, as a server's would be,
// which keep_going keeps as a failed result (a mesh's agent that died).
func dialError(err error) error {
	for _, mistake := range []error{proto.ErrAuthFailed, proto.ErrTokenRequired, proto.ErrServerOpen, proto.ErrNotNetscript} {
		if errors.Is(err, mistake) {
			return &spec.OptionError{Option: "client", Err: err}
		}
	}
	return fmt.Errorf("client: %w", err)
}

// splitHostPort reads client's "host" or "host:port" ("[v6]:port").
func splitHostPort(hp string) (string, int, error) {
	if hp == "" {
		return "", 0, errors.New("empty address")
	}
	host, p, err := net.SplitHostPort(hp)
	if err != nil {
		return hp, spec.DefaultControlPort, nil // no port given
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("%q: the port must be in 1-65535", hp)
	}
	return host, port, nil
}

// expectCtx is Expect that gives up when ctx ends (by closing the
// connection under it).
func expectCtx(ctx context.Context, pc *proto.Conn, t proto.Type, v any, timeout time.Duration) error {
	stop := context.AfterFunc(ctx, func() { pc.Net().SetReadDeadline(time.Now()) })
	defer stop()
	err := pc.Expect(t, v, timeout)
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return err
}

// remoteSetupError keeps an option's name from the daemon's refusal.
func remoteSetupError(err error) error {
	var re *proto.RemoteError
	if errors.As(err, &re) {
		return errors.New(re.Message)
	}
	return err
}

// measureRTT times syncRounds Sync round trips and returns the shortest.
func measureRTT(pc *proto.Conn) (time.Duration, error) {
	best := time.Duration(1<<63 - 1)
	for i := 0; i < syncRounds; i++ {
		t := time.Now()
		if err := pc.Send(proto.TypeSync, proto.Sync{Seq: i}, client.ControlTimeout); err != nil {
			return 0, err
		}
		var m proto.Sync
		if err := pc.Expect(proto.TypeSync, &m, client.ControlTimeout); err != nil {
			return 0, err
		}
		if m.Seq != i {
			return 0, fmt.Errorf("protocol error: Sync %d answered with %d", i, m.Seq)
		}
		best = min(best, time.Since(t))
	}
	return best, nil
}

// EncodeResult is the ClientResult of a test run for a script: the result
// with its histograms, and why it was cut short if it was.
func EncodeResult(res *result.Result, testErr error) (proto.ClientResult, error) {
	var cr proto.ClientResult
	js, err := json.Marshal(res)
	if err != nil {
		return cr, err
	}
	cr.Result = js
	if res.Hist != nil {
		if cr.Hist, err = res.Hist.MarshalBinary(); err != nil {
			return cr, err
		}
	}
	for _, f := range res.Flows {
		var b []byte
		if f.Hist != nil {
			if b, err = f.Hist.MarshalBinary(); err != nil {
				return cr, err
			}
		}
		cr.FlowHists = append(cr.FlowHists, b)
	}
	if testErr != nil {
		cr.Error = testErr.Error()
		var te *client.TestError
		if errors.As(testErr, &te) {
			// The cause alone: the script side tells the partial figures
			// from the result, as for a test it runs itself.
			cr.Error = te.Err.Error()
		}
	}
	return cr, nil
}

// decodeClientResult rebuilds a result and its histograms. The result is
// decoded as strictly as the frame around it (proto.Decode): a field this
// release's result.Result does not have is refused by name rather than
// dropped, so a figure the daemon measured is never silently lost. The
// results of the release before (testdata/v3) have no such field.
func decodeClientResult(cr *proto.ClientResult) (*result.Result, error) {
	var res result.Result
	d := json.NewDecoder(bytes.NewReader(cr.Result))
	d.DisallowUnknownFields()
	if err := d.Decode(&res); err != nil {
		return nil, fmt.Errorf("%s payload: result: %s", proto.TypeClientResult, strings.TrimPrefix(err.Error(), "json: "))
	}
	if len(cr.Hist) > 0 {
		res.Hist = hist.New()
		if err := res.Hist.UnmarshalBinary(cr.Hist); err != nil {
			return nil, fmt.Errorf("result histogram: %w", err)
		}
	}
	if len(cr.FlowHists) > 0 && len(cr.FlowHists) != len(res.Flows) {
		return nil, fmt.Errorf("result: %d flow histograms for %d flows", len(cr.FlowHists), len(res.Flows))
	}
	for i, b := range cr.FlowHists {
		if len(b) == 0 {
			continue
		}
		h := hist.New()
		if err := h.UnmarshalBinary(b); err != nil {
			return nil, fmt.Errorf("histogram of flow %d: %w", i, err)
		}
		res.Flows[i].Hist = h
	}
	if res.Errors == nil {
		res.Errors = map[string]uint64{}
	}
	return &res, nil
}
