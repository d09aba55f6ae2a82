// This file holds the reading of replies: the message type and request ID
// of a msgpack-encoded WAMP message, without decoding the rest.

package floorclient

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// errShort reports a message too short to hold what its header says.
var errShort = errors.New("floorclient: truncated message")

// RequestError is a reply other than the expected success: an ERROR to
// the request, or another message type.
type RequestError struct {
	Code    int    // WAMP message type code of the reply
	Request uint64 // the request ID it answers
	Reply   string // the start of the reply as it came (its error URI, arguments…)
}

func (e *RequestError) Error() string {
	if e.Code == codeError {
		return fmt.Sprintf("floorclient: request %d answered with ERROR: %q", e.Request, e.Reply)
	}
	return fmt.Sprintf("floorclient: request %d answered with message type %d: %q", e.Request, e.Code, e.Reply)
}

// replyExcerpt is how much of an unexpected reply a RequestError keeps.
const replyExcerpt = 200

// requestError is the RequestError of the message readOne read last.
func (c *Conn) requestError(code int, id uint64) *RequestError {
	b := c.last
	if len(b) > replyExcerpt {
		b = b[:replyExcerpt]
	}
	return &RequestError{Code: code, Request: id, Reply: string(b)}
}

// header reads the message type and request ID of msg, in msgpack. For
// ERROR the ID is the third element ([ERROR, REQUEST.Type,
// REQUEST.Request, ...]); for messages without a request ID (GOODBYE,
// ABORT, EVENT…) it is 0.
func header(msg []byte) (code int, id uint64, err error) {
	if len(msg) < 2 {
		return 0, 0, errShort
	}
	rest := msg[1:]
	switch {
	case msg[0]&0xf0 == 0x90: // fixarray
	case msg[0] == 0xdc:
		rest = msg[3:]
	default:
		return 0, 0, fmt.Errorf("floorclient: message is not a msgpack array (0x%02x)", msg[0])
	}
	c, rest, err := readUint(rest)
	if err != nil {
		return 0, 0, err
	}
	switch c {
	case codePublished, codeResult, codeRegistered, codeInvocation:
	case codeError:
		if _, rest, err = readUint(rest); err != nil {
			return 0, 0, err
		}
	default:
		return int(c), 0, nil
	}
	id, _, err = readUint(rest)
	return int(c), id, err
}

// headerJSON is header for a message in JSON.
func headerJSON(msg []byte) (code int, id uint64, err error) {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(msg, " \t\r\n"), []byte("["))
	if !ok {
		return 0, 0, fmt.Errorf("floorclient: message is not a JSON list (%.10q)", msg)
	}
	c, rest, err := jsonUint(rest)
	if err != nil {
		return 0, 0, err
	}
	switch c {
	case codePublished, codeResult, codeRegistered, codeInvocation:
	case codeError:
		if _, rest, err = jsonUint(rest); err != nil {
			return 0, 0, err
		}
	default:
		return int(c), 0, nil
	}
	id, _, err = jsonUint(rest)
	return int(c), id, err
}

// jsonUint reads an unsigned integer element of a JSON list, with the
// separator before it (none before the first) and the white space around.
func jsonUint(b []byte) (uint64, []byte, error) {
	b = bytes.TrimLeft(b, " \t\r\n,")
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, nil, fmt.Errorf("floorclient: expected an integer at %.10q", b)
	}
	v, err := strconv.ParseUint(string(b[:n]), 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("floorclient: %w", err)
	}
	return v, b[n:], nil
}

// readUint reads a msgpack unsigned integer (or a non-negative signed one)
// from the start of b.
func readUint(b []byte) (uint64, []byte, error) {
	if len(b) == 0 {
		return 0, nil, errShort
	}
	m := b[0]
	if m < 0x80 {
		return uint64(m), b[1:], nil
	}
	var n int
	switch m {
	case 0xcc, 0xd0:
		n = 1
	case 0xcd, 0xd1:
		n = 2
	case 0xce, 0xd2:
		n = 4
	case 0xcf, 0xd3:
		n = 8
	default:
		return 0, nil, fmt.Errorf("floorclient: expected an integer, got 0x%02x", m)
	}
	if len(b) < 1+n {
		return 0, nil, errShort
	}
	var v uint64
	switch n {
	case 1:
		v = uint64(b[1])
	case 2:
		v = uint64(binary.BigEndian.Uint16(b[1:]))
	case 4:
		v = uint64(binary.BigEndian.Uint32(b[1:]))
	case 8:
		v = binary.BigEndian.Uint64(b[1:])
	}
	if m >= 0xd0 && v>>(8*n-1) != 0 {
		return 0, nil, fmt.Errorf("floorclient: negative integer where an ID was expected")
	}
	return v, b[1+n:], nil
}

// readMessage reads the next WebSocket message into buf, growing it as
// needed, and returns the filled part.
func readMessage(r io.Reader, buf []byte) ([]byte, error) {
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf)+512)...)
		}
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return buf[:n], nil
		}
		if err != nil {
			return buf[:n], err
		}
	}
}
