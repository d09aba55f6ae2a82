// This file holds the write side of the WebSocket: the link builds and
// masks its frames itself (RFC 6455 §5.2, §5.3) and writes each with one
// call, data and control frames alike, under the link's write lock.
//
// gorilla/websocket keeps a 4 KiB write buffer per connection, into which
// it copies every message before writing it: a quarter of an idle
// client's memory, and a copy per message. The link already encodes each
// message into a buffer of its own (wbuf); it leaves room for the header
// in front of it, masks the payload in place and writes header and
// payload at once. gorilla still makes the handshake and reads every
// frame; it never writes after the handshake (the ping and close handlers
// answer through here), so the write deadline and frameConn's write side
// have one owner: the holder of wmu.

package engine

import (
	"encoding/binary"
	"math/rand/v2"
	"net"
	"time"

	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/wsframe"
)

// frameRoom is the room left in front of an encoded message for its
// frame header.
var frameRoom [wsframe.MaxHeader]byte

// noWriteBuffers is gorilla's write buffer pool for the link: with a pool
// set, gorilla allocates no write buffer when the connection opens, and
// the link never asks it for one (it writes its frames itself).
type noWriteBuffers struct{}

func (noWriteBuffers) Get() any  { return nil }
func (noWriteBuffers) Put(_ any) {}

// sendFrame writes one frame of opcode op whose payload is
// buf[wsframe.MaxHeader:], buf's first MaxHeader bytes being free room: it
// puts the header right before the payload, masks the payload in place
// and writes both with one call. It runs under wmu.
func (l *link) sendFrame(op int, buf []byte) error {
	payload := buf[wsframe.MaxHeader:]
	n := len(payload)
	key := rand.Uint32()
	var hdr [wsframe.MaxHeader]byte
	hdr[0] = 0x80 | byte(op) // FIN: every message is one frame
	h := 2
	switch {
	case n < 126:
		hdr[1] = 0x80 | byte(n)
	case n <= 0xffff:
		hdr[1] = 0x80 | 126
		binary.BigEndian.PutUint16(hdr[2:], uint16(n))
		h = 4
	default:
		hdr[1] = 0x80 | 127
		binary.BigEndian.PutUint64(hdr[2:], uint64(n))
		h = 10
	}
	binary.LittleEndian.PutUint32(hdr[h:], key)
	h += 4
	start := wsframe.MaxHeader - h
	copy(buf[start:], hdr[:h])
	maskBytes(key, payload)
	l.refreshWriteDeadline()
	_, err := l.raw.Write(buf[start:])
	return err
}

// maskBytes XORs b with the mask key, whose first byte is key's lowest
// (the key as it went out, little-endian), eight bytes at a time.
func maskBytes(key uint32, b []byte) {
	k := uint64(key) | uint64(key)<<32
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)^k)
		b = b[8:]
	}
	for i := range b {
		b[i] ^= byte(key >> (8 * (i & 3)))
	}
}

// refreshWriteDeadline moves the socket's write deadline once half of
// its margin is used: each write has between writeTimeout and 1.5 ×
// writeTimeout, and writing back to back costs no timer update per
// message. It runs under wmu.
func (l *link) refreshWriteDeadline() {
	if now := time.Now(); l.wdeadline.Sub(now) < l.writeTimeout {
		l.wdeadline = now.Add(l.writeTimeout + l.writeTimeout/2)
		_ = l.raw.SetWriteDeadline(l.wdeadline)
	}
}

// sendControl writes a control frame (ping, pong, close) with data, at
// most 125 bytes, under wmu; a closed link writes nothing.
func (l *link) sendControl(op int, data []byte) error {
	var a [wsframe.MaxHeader + 125]byte
	buf := append(a[:wsframe.MaxHeader], data...)
	l.wmu.Lock()
	defer l.wmu.Unlock()
	select {
	case <-l.closed:
		return net.ErrClosed
	default:
	}
	return l.sendFrame(op, buf) // corked, it goes with the frames held (coalesce.go)
}

// answerClose is the link's close handler: it answers the router's close
// frame with one carrying the same code, as gorilla's own would.
func (l *link) answerClose(code int, _ string) error {
	_ = l.sendControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""))
	return nil
}
