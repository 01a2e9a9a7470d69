package client

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/auth"
	"netscript/engine/sock"
)

// Consent before bulk: a flow of a test with a control connection sends
// its data only to an endpoint that has shown it holds the session's data
// key, on that very port. A port that is not the test's endpoint (another
// service of the host that answered the control handshake, say) gets the
// TCP handshake and one 32-byte tag, or a few 40-byte datagrams, and
// nothing more.
//
//   - A TCP data connection sends auth.ConnHello and waits for the server's
//     auth.ConnAck before its loop starts.
//   - A UDP flow greets its endpoint (auth.Greeting): a Hello until the
//     endpoint's Ack, then a Confirm until its Done, each at most
//     helloTries times.
//   - A TCP_CRR flow first makes one such connection to its endpoint, then
//     closes it.

// helloTries bounds the Hellos a UDP flow sends to an endpoint that does
// not answer; the waits between them double from helloFirstWait, so the
// last is sent about 1.6 s after the first.
const (
	helloTries     = 5
	helloFirstWait = 100 * time.Millisecond
)

// ConsentError is a data endpoint that did not show the session's tag: it
// is not the test's endpoint, and got nothing but the greeting.
type ConsentError struct {
	Endpoint string
	Why      string
}

func (e *ConsentError) Error() string {
	return fmt.Sprintf("data endpoint %s did not answer with the session's tag (%s): it is not this test's endpoint, so nothing was sent to it beyond the greeting", e.Endpoint, e.Why)
}

// greetConn shows a new TCP data connection's tag and waits, at most
// timeout, for the server's.
func greetConn(fd int, key []byte, remote *sock.Addr, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	if err := sendTag(fd, auth.ConnHello(key), timeout); err != nil {
		return &sock.OpError{Op: "send data tag", Addr: remote.String(), Err: err}
	}
	want := auth.ConnAck(key)
	got := make([]byte, 0, len(want))
	var buf [auth.TagSize]byte
	for len(got) < len(want) {
		n, en := sock.Read(fd, buf[:len(want)-len(got)]) // at most a tick (SO_RCVTIMEO)
		switch {
		case en == unix.EAGAIN || en == unix.EINTR:
			if time.Now().After(deadline) {
				return &ConsentError{Endpoint: remote.String(), Why: fmt.Sprintf("no answer within %v", timeout)}
			}
			continue
		case en != 0:
			return &ConsentError{Endpoint: remote.String(), Why: en.Error()}
		case n == 0:
			return &ConsentError{Endpoint: remote.String(), Why: "it closed the connection"}
		}
		got = append(got, buf[:n]...)
	}
	if !auth.Equal(got, want) {
		return &ConsentError{Endpoint: remote.String(), Why: "it answered something else"}
	}
	return nil
}

// greetDatagrams runs flow's greeting on the connected UDP socket fd
// (auth.Greeting): Hello until the endpoint's Ack, then Confirm with its
// cookie until the Done, each at most helloTries times and all within
// timeout. Datagrams that are not the answer are dropped, but one that
// says the port is closed ends the greeting at once.
func greetDatagrams(fd int, key []byte, flow uint32, remote *sock.Addr, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	ack, tries1, err := greetStep(fd, key, auth.Greeting(key, auth.KindHello, flow, auth.Cookie{}), auth.KindAck, flow, remote, deadline)
	if err != nil {
		return err
	}
	_, tries2, err := greetStep(fd, key, auth.Greeting(key, auth.KindConfirm, flow, ack), auth.KindDone, flow, remote, deadline)
	if err != nil {
		return err
	}
	// Before Start the endpoint sends nothing but greetings; a late answer
	// to a Hello or Confirm sent again must not reach the flow's loop as
	// data. Drop what came, and when one was sent again, what may still
	// be on its way.
	drain := time.Duration(0)
	if tries1+tries2 > 2 {
		drain = helloFirstWait << (max(tries1, tries2) - 1)
	}
	buf := make([]byte, auth.GreetingSize+1)
	for end := time.Now().Add(drain); ; {
		if _, _, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT); err == nil {
			continue
		}
		if !time.Now().Before(end) {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}

// greetStep sends msg until the endpoint answers with a greeting of kind
// want for flow, and returns its cookie and how many times it sent msg.
func greetStep(fd int, key, msg []byte, want byte, flow uint32, remote *sock.Addr, deadline time.Time) (auth.Cookie, int, error) {
	wait := helloFirstWait
	buf := make([]byte, auth.GreetingSize+1)
	try := 0
	for ; try < helloTries && time.Now().Before(deadline); try++ {
		if _, en := sock.Write(fd, msg); en != 0 && en != unix.EAGAIN && en != unix.ENOBUFS {
			return auth.Cookie{}, try + 1, &ConsentError{Endpoint: remote.String(), Why: en.Error()}
		}
		next := time.Now().Add(wait)
		for time.Now().Before(next) && time.Now().Before(deadline) {
			n, en := sock.Read(fd, buf) // at most a tick
			switch {
			case en == unix.EAGAIN || en == unix.EINTR:
				continue
			case en != 0:
				return auth.Cookie{}, try + 1, &ConsentError{Endpoint: remote.String(), Why: en.Error()} // ECONNREFUSED: nothing listens there
			}
			if kind, f, c, ok := auth.ParseGreeting(key, buf[:n]); ok && kind == want && f == flow {
				return c, try + 1, nil
			}
		}
		wait *= 2
	}
	return auth.Cookie{}, try, &ConsentError{Endpoint: remote.String(), Why: fmt.Sprintf("no answer to %d datagrams", helloTries)}
}

// greetTries bounds the consent connections a TCP_CRR flow makes when
// each connect times out: on a path that drops SYNs (the very paths
// TCP_CRR is run to study) one connect of ConnectTimeout fails often
// enough to end a test that would have measured well, so a timed-out
// connect is tried again, each from a new port, before the flow gives up.
const greetTries = 4

// greetEndpoint makes a TCP_CRR flow's one consent connection to remote
// (from the flow's source address, if it has one), and closes it once the
// endpoint has. A connect that times out is made again, greetTries times
// in all; any other failure ends it at once.
func greetEndpoint(family int, local netip.AddrPort, remote *sock.Addr, key []byte, timeout time.Duration) error {
	var err error
	for try := 1; try <= greetTries; try++ {
		err = greetOnce(family, local, remote, key, timeout)
		if !timedOut(err) {
			return err
		}
	}
	return fmt.Errorf("%w (%d connects of %v each)", err, greetTries, timeout)
}

// timedOut tells a connect that timed out from every other failure.
func timedOut(err error) bool {
	var oe *sock.OpError
	return errors.As(err, &oe) && oe.Op == "connect" && errors.Is(oe.Err, unix.ETIMEDOUT)
}

// greetOnce is one consent connection of greetEndpoint.
func greetOnce(family int, local netip.AddrPort, remote *sock.Addr, key []byte, timeout time.Duration) error {
	if local.IsValid() {
		local = netip.AddrPortFrom(local.Addr(), 0)
	}
	fd, err := sock.Open(family, unix.SOCK_STREAM, sock.Options{}, local)
	if err != nil {
		return err
	}
	defer sock.Close(fd)
	if err := sock.Dial(fd, remote, timeout); err != nil {
		return err
	}
	if err := greetConn(fd, key, remote, timeout); err != nil {
		return err
	}
	// The endpoint closes it first, as it does the test's connections:
	// the TIME_WAIT stays on its side, not on the flow's port range.
	deadline := time.Now().Add(timeout)
	var b [1]byte
	for {
		n, en := sock.Read(fd, b[:])
		switch {
		case n == 0 && en == 0, en != 0 && en != unix.EAGAIN && en != unix.EINTR:
			return nil
		case n > 0:
			return &ConsentError{Endpoint: remote.String(), Why: "it sent more than its tag"}
		case time.Now().After(deadline):
			return nil
		}
	}
}
