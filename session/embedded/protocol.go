package embedded

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"syscall"

	"netscript/engine/auth"
	"netscript/engine/sock"
)

// The conversation on the descriptor the script and its server share, one
// line each way at a time:
//
//	script → server  "token HEX" (the token, hex) or "token none"
//	server → script  "FAMILY ADDR:PORT" for each address it listens on
//	                 ("inet 127.0.0.1:40123", "inet6 [::1]:40124"), then "ready"
//
// after which the server closes its end and serves until SIGTERM.
const (
	tokenLine = "token"
	noToken   = "none"
	readyLine = "ready"
)

// maxLine bounds a line of the conversation: a token of auth.MaxTokenSize
// bytes in hex and its word.
const maxLine = 2*auth.MaxTokenSize + 64

// writeToken sends the token the server must ask its clients for.
func writeToken(w io.Writer, tok auth.Token) error {
	v := noToken
	if tok != nil {
		v = hex.EncodeToString(tok)
	}
	_, err := fmt.Fprintf(w, "%s %s\n", tokenLine, v)
	return err
}

// readToken reads the token line; nil means no token.
func readToken(r *bufio.Reader) (auth.Token, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, fmt.Errorf("waiting for the token: %w", err)
	}
	word, v, ok := strings.Cut(line, " ")
	if !ok || word != tokenLine {
		return nil, fmt.Errorf("the script said %q, not the token", line)
	}
	if v == noToken {
		return nil, nil
	}
	b, err := hex.DecodeString(v)
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("the script sent a token that is not hex")
	}
	return auth.Token(b), nil
}

// readLine reads one line of at most maxLine bytes, without its newline.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		frag, err := r.ReadSlice('\n')
		b.Write(frag)
		if b.Len() > maxLine {
			return "", fmt.Errorf("a line longer than %d bytes", maxLine)
		}
		switch err {
		case nil:
			return strings.TrimSuffix(b.String(), "\n"), nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			return "", io.ErrUnexpectedEOF
		default:
			return "", err
		}
	}
}

// writeAddr tells the script one address the server listens on.
func writeAddr(w io.Writer, ap netip.AddrPort) error {
	fam := sock.Inet
	if ap.Addr().Is6() && !ap.Addr().Is4In6() {
		fam = sock.Inet6
	}
	_, err := fmt.Fprintf(w, "%s %s\n", fam, ap)
	return err
}

// writeReady says the server listens on every address it could.
func writeReady(w io.Writer) error {
	_, err := fmt.Fprintln(w, readyLine)
	return err
}

// readAddrs reads the server's "FAMILY ADDR:PORT" lines up to "ready".
func readAddrs(r io.Reader) (map[sock.Family]netip.AddrPort, error) {
	addrs := map[sock.Family]netip.AddrPort{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == readyLine {
			if _, ok := addrs[sock.Inet]; !ok {
				return nil, fmt.Errorf("the server process did not listen on 127.0.0.1")
			}
			addrs[sock.Auto] = addrs[sock.Inet]
			return addrs, nil
		}
		fam, addr, ok := strings.Cut(line, " ")
		ap, err := netip.ParseAddrPort(addr)
		if !ok || err != nil {
			return nil, fmt.Errorf("the server process said %q", line)
		}
		f, err := sock.ParseFamily(fam)
		if err != nil {
			return nil, fmt.Errorf("the server process said %q", line)
		}
		addrs[f] = ap
	}
	// A process that ends without reading the token resets the socket.
	if err := sc.Err(); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		return nil, fmt.Errorf("waiting for the server process: %w", err)
	}
	return nil, fmt.Errorf("the server process ended before it listened")
}
