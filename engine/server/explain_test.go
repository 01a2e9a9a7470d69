package server_test

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/server"
)

// nameBound is a daemon front end's Config.Explain in miniature: it names
// the bound a limits.Bounded carries, so a test sees the typed error reach
// the text the server sends and logs.
func nameBound(err error) string {
	var b limits.Bounded
	if errors.As(err, &b) {
		return err.Error() + " [" + b.BoundName() + "]"
	}
	return err.Error()
}

// TestExplainWordsRefusals: the text a refused client gets and the log's
// line are Config.Explain's, given the typed error (the bound's name as
// data); without Explain they are the error's own.
func TestExplainWordsRefusals(t *testing.T) {
	for _, c := range []struct {
		explain func(error) string
		want    string
	}{
		{nameBound, "server: flows 2000 exceeds this server's limit of 1024 [max-flows]"},
		{nil, "server: flows 2000 exceeds this server's limit of 1024"},
	} {
		var log syncBuf
		srv := server.New(server.Config{Version: "test", Log: &log, Explain: c.explain})
		a, err := srv.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		conn, err := net.Dial("tcp", a.String())
		if err != nil {
			t.Fatal(err)
		}
		pc := proto.NewConn(conn)
		if err := pc.Handshake(5*time.Second, false); err != nil {
			t.Fatal(err)
		}
		if _, err := pc.Authenticate(auth.Secret{}, false, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		pc.Send(proto.TypeSetup, proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, Flows: 2000}, 5*time.Second)
		err = pc.Expect(proto.TypeReady, &proto.Ready{}, 10*time.Second)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
		conn.Close()
		srv.Close()
		if logged := strings.TrimPrefix(c.want, "server: "); !strings.Contains(log.String(), logged) {
			t.Errorf("the log does not hold %q:\n%s", logged, log.String())
		}
	}
}

// String returns what was logged.
func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
