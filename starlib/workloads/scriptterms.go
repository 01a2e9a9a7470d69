package workloads

import (
	"fmt"
	"strings"

	"netscript/engine/client"
	"netscript/engine/npwire"
	"netscript/engine/result"
	"netscript/engine/spec"
)

// scriptTerms words the engine's typed errors in a script's syntax: the
// engine says "against a netserver: option client is not supported", the
// script's author reads `server="netserver": option client= is not
// supported`, the keyword they wrote. Every error in err's tree is
// looked at; the chain is kept.
func scriptTerms(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	orig := text
	replace := func(engine, script string) { text = strings.Replace(text, engine, script, 1) }
	// The netserver prefix first: the rewrites below are of text inside it.
	walkErrors(err, func(e error) {
		if ne, ok := e.(*client.NetserverError); ok {
			replace(ne.Error(), `server="netserver": `+ne.Err.Error())
		}
	})
	walkErrors(err, func(e error) {
		switch e := e.(type) {
		case *spec.NetserverUnsupportedError:
			replace(e.Error(), `server="netserver": option `+e.Option+`= is not supported by netserver`+e.Because())
		case *spec.FlowListError:
			replace(e.Error(), fmt.Sprintf("a list of %d %s for flows=%d: give one per flow", e.Len, e.What, e.Flows))
		case *client.PeerError:
			switch e.Kind {
			case client.PeerNetserver:
				replace(e.Error(), e.Error()+`: use server="netserver" (or netscript --server netserver)`)
			case client.PeerSlow:
			default:
				replace(e.Error(), e.Error()+": check host and port (the one `netscript serve` listens on)")
			}
		case *npwire.NotNetserverError:
			if e.Netscript {
				replace(e.Error(), e.Error()+`: leave server= out, or give server="netscript"`)
			}
		}
		if e == spec.ErrNetserverNeedsHost {
			replace(e.Error(), `server="netserver" needs host: the embedded loopback server is netscript's`)
		}
	})
	if text == orig {
		return err
	}
	return &advised{err: err, text: text}
}

// walkErrors calls f on err and on every error it wraps, depth first.
func walkErrors(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		walkErrors(u.Unwrap(), f)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walkErrors(e, f)
		}
	}
}

// scriptNotes words the engine's notes on res the way a script reads its
// fields: a figure the server did not report is None.
func scriptNotes(res *result.Result) {
	if res == nil {
		return
	}
	for i, n := range res.Notes {
		switch {
		case strings.HasPrefix(n, client.NoteNetserver):
			res.Notes[i] = `server="netserver": ` + n
		case strings.HasPrefix(n, client.NoteRemoteCPUUnreported):
			n = strings.Replace(n, npwire.PadAvoided, "transactions= avoids the pad", 1)
			res.Notes[i] = "cpu_util: remote_cpu is None: " + strings.TrimPrefix(n, client.NoteRemoteCPUUnreported)
		}
	}
}
