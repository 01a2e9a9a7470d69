package npwire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"
)

// MessageSize is the size of every control message, request or response.
const MessageSize = 656

// BodyWords is how many 32-bit words of test-specific data a message
// carries (netperf's MAXSPECDATA).
const BodyWords = 162

// DefaultPort is netserver's control port (netperf's TEST_PORT).
const DefaultPort = 12865

// PadTime is how much longer than the test netserver's own timer runs when
// it receives (netperf's PAD_TIME, seconds).
const PadTime = 4

// Request and response codes (netlib.h).
const (
	TypeDebugOn          = 1
	TypeDebugOff         = 2
	TypeDebugOK          = 3
	TypeNodeIdentify     = 4
	TypeCPUCalibrate     = 5
	TypePassphrase       = 6
	TypeDoTCPStream      = 10
	TypeDoTCPRR          = 13
	TypeDoUDPStream      = 16
	TypeDoUDPRR          = 19
	TypeDoTCPCRR         = 34
	TypeDoTCPMaerts      = 94
	TypeDoOmni           = 97
	TypeOmniResponse     = 98
	TypeOmniResults      = 99
	TypeDoTCPCC          = 300
	TypeTCPCCResponse    = 301
	TypeTCPCCResults     = 302
	TypeDoSysinfo        = 600
	TypeSysinfoResponse  = 601
	UnknownRequest       = 998 // serv_errno netserver answers an unknown request with
	TypeDoSCTPStream     = 500
	TypeDoSDPStream      = 540
	TypeDoTCPTRR         = 70
	TypeDoDLPICOStream   = 22
	TypeDoStreamStream   = 37 // UNIX domain
	TypeDoLWPStreamFirst = 100
)

// Netperf's own codes for address families and socket types, which differ
// between operating systems (nettest_bsd.h).
const (
	NFUnspec = 0
	NFInet   = 4
	NFInet6  = 6

	NSTStream = 1
	NSTDgram  = 2
)

// Directions of an omni test, from the receiver of the request's point of
// view (nettest_omni.c): netperf sends to a server that receives.
const (
	DirSend = 2 // NETPERF_XMIT
	DirRecv = 4 // NETPERF_RECV
)

// CPU measurement methods (netlib.h); netserver on Linux uses ProcStat,
// which netperf prints as 'S'.
const (
	CPUUnknown = 0
	ProcStat   = 8
)

// PassphraseLen is the room for netperf's -Z passphrase: a PASSPHRASE
// request's whole body, its last byte a NUL.
const PassphraseLen = BodyWords * 4

// Message is one control message.
type Message struct {
	Type int32 // request or response code
	// Word2 is the second word: in a request the CPU netserver binds its
	// test to (-1 for none), in a response netserver's errno.
	Word2 int32
	Body  [BodyWords * 4]byte
}

// Read reads one whole message from r, waiting for all 656 bytes as both
// ends of netperf do.
func Read(r io.Reader) (*Message, error) {
	var b [MessageSize]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return nil, err
	}
	return Parse(b[:])
}

// Parse decodes a message from exactly MessageSize bytes.
func Parse(b []byte) (*Message, error) {
	if len(b) != MessageSize {
		return nil, fmt.Errorf("netperf message of %d bytes, want %d", len(b), MessageSize)
	}
	m := &Message{
		Type:  int32(binary.BigEndian.Uint32(b[0:])),
		Word2: int32(binary.BigEndian.Uint32(b[4:])),
	}
	copy(m.Body[:], b[8:])
	return m, nil
}

// Bytes encodes m as the 656 bytes on the wire.
func (m *Message) Bytes() []byte {
	b := make([]byte, MessageSize)
	binary.BigEndian.PutUint32(b[0:], uint32(m.Type))
	binary.BigEndian.PutUint32(b[4:], uint32(m.Word2))
	copy(b[8:], m.Body[:])
	return b
}

// Write writes m to w in one call, with a deadline if w has one and d > 0.
func Write(w io.Writer, m *Message, d time.Duration) error {
	if dl, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok && d > 0 {
		dl.SetWriteDeadline(time.Now().Add(d))
		defer dl.SetWriteDeadline(time.Time{})
	}
	_, err := w.Write(m.Bytes())
	return err
}

// Word returns body word i as sent in network order.
func (m *Message) Word(i int) uint32 { return binary.BigEndian.Uint32(m.Body[4*i:]) }

// SetWord sets body word i, in network order.
func (m *Message) SetWord(i int, v uint32) { binary.BigEndian.PutUint32(m.Body[4*i:], v) }

// Int returns body word i as a signed word.
func (m *Message) Int(i int) int32 { return int32(m.Word(i)) }

// Float returns body word i as the 32-bit float whose bit pattern it is.
func (m *Message) Float(i int) float32 { return math.Float32frombits(m.Word(i)) }

// SetFloat sets body word i to the bit pattern of f.
func (m *Message) SetFloat(i int, f float32) { m.SetWord(i, math.Float32bits(f)) }

// String returns the NUL-terminated character array of n bytes at byte
// offset off of the body (it need not be terminated: netperf's are not
// always).
func (m *Message) String(off, n int) string {
	s := m.Body[off : off+n]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return string(s)
}

// SetString puts s into the character array of n bytes at byte offset off,
// cut to leave room for a terminating NUL.
func (m *Message) SetString(off, n int, s string) {
	a := m.Body[off : off+n]
	clear(a)
	if len(s) > n-1 {
		s = s[:n-1]
	}
	copy(a, s)
}

// Name is what a person calls the message type: netperf's name of the
// request or response ("DO_OMNI"), or its number.
func Name(t int32) string {
	switch t {
	case TypeDebugOn:
		return "DEBUG_ON"
	case TypeDebugOff:
		return "DEBUG_OFF"
	case TypeDebugOK:
		return "DEBUG_OK"
	case TypeNodeIdentify:
		return "NODE_IDENTIFY"
	case TypeCPUCalibrate:
		return "CPU_CALIBRATE"
	case TypePassphrase:
		return "PASSPHRASE"
	case TypeDoTCPStream:
		return "DO_TCP_STREAM"
	case TypeDoTCPRR:
		return "DO_TCP_RR"
	case TypeDoUDPStream:
		return "DO_UDP_STREAM"
	case TypeDoUDPRR:
		return "DO_UDP_RR"
	case TypeDoTCPCRR:
		return "DO_TCP_CRR"
	case TypeDoTCPMaerts:
		return "DO_TCP_MAERTS"
	case TypeDoOmni:
		return "DO_OMNI"
	case TypeOmniResponse:
		return "OMNI_RESPONSE"
	case TypeOmniResults:
		return "OMNI_RESULTS"
	case TypeDoTCPCC:
		return "DO_TCP_CC"
	case TypeTCPCCResponse:
		return "TCP_CC_RESPONSE"
	case TypeTCPCCResults:
		return "TCP_CC_RESULTS"
	case TypeDoSysinfo:
		return "DO_SYSINFO"
	case TypeSysinfoResponse:
		return "SYSINFO_RESPONSE"
	}
	return fmt.Sprintf("request %d", t)
}

// FamilyToNF maps an AF_ value of this (Linux) machine to netperf's code;
// 0 for one it has none for.
func FamilyToNF(af int) uint32 {
	switch af {
	case 2: // AF_INET
		return NFInet
	case 10: // AF_INET6
		return NFInet6
	}
	return NFUnspec
}

// NFToFamily maps netperf's family code to this machine's AF_ value; 0 for
// an unknown code.
func NFToFamily(nf uint32) int {
	switch nf {
	case NFInet:
		return 2
	case NFInet6:
		return 10
	}
	return 0
}
