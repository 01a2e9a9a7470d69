package workloads

import (
	"errors"
	"strings"
	"syscall"

	"netscript/engine/proto"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/internal/serveadvice"
)

// advise turns the engine's typed errors into what a script's author can
// act on, in the words and syntax of a script: the engine says that a test
// without a control connection needs a data port, the front end says which
// keyword does that and which command starts the endpoint. The error keeps
// its chain (errors.As still finds a *client.TestError and the rest).
func advise(err error, w *spec.Workload) error {
	if err == nil {
		return nil
	}
	err = scriptTerms(err)
	var oe *sock.OpError
	switch {
	case errors.Is(err, spec.ErrNeedsDataPort):
		return rephrase(err, spec.ErrNeedsDataPort.Error(),
			"False needs data_port: the port of a standing data endpoint (started with `netscript serve --data "+w.Name+":PORT`)")
	case errors.Is(err, spec.ErrNeedsControl):
		return rephrase(err, spec.ErrNeedsControl.Error(), spec.ErrNeedsControl.Error()+" (control=False)")
	case errors.Is(err, proto.ErrTokenRequired):
		return rephrase(err, proto.ErrTokenRequired.Error(), proto.ErrTokenRequired.Error()+
			": set $NETSCRIPT_TOKEN, or run netscript --token-file FILE, with the token `netscript serve` was given")
	case errors.Is(err, proto.ErrServerOpen):
		return rephrase(err, proto.ErrServerOpen.Error(), proto.ErrServerOpen.Error()+
			"; to use an open server, run without $NETSCRIPT_TOKEN and --token-file")
	case errors.As(err, &oe) && errors.Is(err, syscall.ECONNREFUSED):
		return &advised{err: err, text: err.Error() + "; is `netscript serve` running?"}
	}
	return err
}

// rephrase replaces the engine's wording of a cause inside err's message.
func rephrase(err error, cause, with string) error {
	return &advised{err: err, text: strings.Replace(err.Error(), cause, with, 1)}
}

// advised is an error told the front end's way; it unwraps to the
// engine's.
type advised struct {
	err  error
	text string
}

func (a *advised) Error() string { return a.text }
func (a *advised) Unwrap() error { return a.err }

// embeddedBound explains a bound of the embedded server that names a
// serve flag: the script's user cannot pass it to that server, but can
// start a daemon with it and name it as the host. The bound is a
// limits.Bounded, or, as the server's refusal came over the wire (where
// its type is lost), text naming the flag that sets it.
func embeddedBound(err error) error {
	if err == nil {
		return err
	}
	text := serveadvice.Explain(err)
	if !serveadvice.NamesFlag(text) {
		return err
	}
	return &advised{err: err, text: text + "; the embedded server keeps a daemon's bounds on threads and tests at once: " +
		"run `netscript serve` with that flag and give its address as host"}
}
