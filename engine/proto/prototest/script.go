// Package prototest holds what tests of the control protocol share: a
// connection whose peer's side is fixed in advance, for fuzzing either end.
package prototest

import (
	"bytes"
	"net"
	"time"
)

// Script is a net.Conn whose peer's bytes are fixed in advance and whose
// writes go nowhere: it drives one side of a conversation from fuzz input.
// Its addresses are loopback ones (the peer at port 40000, this end at
// 12866).
type Script struct{ r *bytes.Reader }

// NewScript returns a Script whose reads return in and then io.EOF.
func NewScript(in []byte) *Script { return &Script{bytes.NewReader(in)} }

func (s *Script) Read(p []byte) (int, error)         { return s.r.Read(p) }
func (s *Script) Write(p []byte) (int, error)        { return len(p), nil }
func (s *Script) Close() error                       { return nil }
func (s *Script) LocalAddr() net.Addr                { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 12866} }
func (s *Script) RemoteAddr() net.Addr               { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000} }
func (s *Script) SetDeadline(t time.Time) error      { return nil }
func (s *Script) SetReadDeadline(t time.Time) error  { return nil }
func (s *Script) SetWriteDeadline(t time.Time) error { return nil }
