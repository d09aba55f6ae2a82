package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/wsframe"
)

// captureConn records what is written to it.
type captureConn struct {
	net.Conn
	out      bytes.Buffer
	deadline time.Time
}

func (c *captureConn) Write(p []byte) (int, error)        { return c.out.Write(p) }
func (c *captureConn) SetWriteDeadline(t time.Time) error { c.deadline = t; return nil }

// TestSendFrame: a frame of each payload length class goes out as one
// write, final, with the opcode, the length in the shortest form RFC 6455
// allows, the mask bit and a key, and the payload masked with that key;
// the write deadline is set.
func TestSendFrame(t *testing.T) {
	for _, n := range []int{0, 1, 7, 125, 126, 127, 1000, 65535, 65536, 70000} {
		c := &captureConn{}
		l := &link{raw: c, writeTimeout: time.Second}
		payload := make([]byte, n)
		for i := range payload {
			payload[i] = byte(i * 7)
		}
		buf := append(append([]byte{}, frameRoom[:]...), payload...)
		if err := l.sendFrame(websocket.BinaryMessage, buf); err != nil {
			t.Fatal(err)
		}
		out := c.out.Bytes()
		var hdr [wsframe.MaxHeader]byte
		copy(hdr[:], out)
		h := wsframe.HeaderLen(hdr[1])
		wantH := 6
		if n > 125 {
			wantH = 8
		}
		if n > 65535 {
			wantH = 14
		}
		if h != wantH || hdr[0] != 0x82 || hdr[1]&0x80 == 0 || wsframe.PayloadLen(&hdr) != uint64(n) || len(out) != h+n {
			t.Fatalf("payload %d: header % x (length %d, want %d), payload length %d, %d bytes written", n, hdr[:h], h, wantH, wsframe.PayloadLen(&hdr), len(out))
		}
		key := binary.LittleEndian.Uint32(out[h-4 : h])
		got := append([]byte{}, out[h:]...)
		for i := range got {
			got[i] ^= out[h-4+i%4]
		}
		if !bytes.Equal(got, payload) {
			t.Fatalf("payload %d: unmasked with key %08x it differs", n, key)
		}
		if c.deadline.IsZero() {
			t.Errorf("payload %d: no write deadline set", n)
		}
	}
}

// TestMaskBytes: masking eight bytes at a time gives what masking byte by
// byte does, for every length and alignment up to 40.
func TestMaskBytes(t *testing.T) {
	const key = 0xa1b2c3d4
	kb := [4]byte{0xd4, 0xc3, 0xb2, 0xa1}
	for n := range 41 {
		b := make([]byte, n)
		want := make([]byte, n)
		for i := range b {
			b[i] = byte(i*31 + 5)
			want[i] = b[i] ^ kb[i%4]
		}
		maskBytes(key, b)
		if !bytes.Equal(b, want) {
			t.Fatalf("length %d: % x, want % x", n, b, want)
		}
	}
}

// TestGorillaReadsSentFrames: a server reading with gorilla/websocket
// gets the messages and control frames a dialed link wrote, whole.
func TestGorillaReadsSentFrames(t *testing.T) {
	msgs := [][]byte{[]byte("hello"), bytes.Repeat([]byte{0xee}, 300), bytes.Repeat([]byte("x"), 70000)}
	type read struct {
		typ  int
		data []byte
		err  error
	}
	got := make(chan read, len(msgs)+2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up := websocket.Upgrader{Subprotocols: []string{protoMsgPack}}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			got <- read{err: err}
			return
		}
		defer ws.Close()
		ws.SetPingHandler(func(d string) error { got <- read{typ: websocket.PingMessage, data: []byte(d)}; return nil })
		for range len(msgs) + 1 {
			typ, b, err := ws.ReadMessage()
			got <- read{typ, b, err}
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	l, err := dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), false, 5*time.Second, 5*time.Second, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close(errors.New("test over"))
	for _, m := range msgs {
		l.wmu.Lock()
		err := l.sendFrame(websocket.BinaryMessage, append(append([]byte{}, frameRoom[:]...), m...))
		l.wmu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := l.sendControl(websocket.PingMessage, []byte("p")); err != nil {
		t.Fatal(err)
	}
	if err := l.sendControl(websocket.TextMessage, []byte("after the ping")); err != nil {
		t.Fatal(err)
	}
	for i, want := range msgs {
		r := <-got
		if r.err != nil || r.typ != websocket.BinaryMessage || !bytes.Equal(r.data, want) {
			t.Fatalf("message %d: type %d, %d bytes, err %v; want %d bytes", i, r.typ, len(r.data), r.err, len(want))
		}
	}
	if r := <-got; r.typ != websocket.PingMessage || string(r.data) != "p" {
		t.Errorf("after the messages: type %d %q err %v, want the ping", r.typ, r.data, r.err)
	}
	if r := <-got; r.err != nil || r.typ != websocket.TextMessage || string(r.data) != "after the ping" {
		t.Errorf("after the ping: type %d %q err %v", r.typ, r.data, r.err)
	}
}

// TestCloseAnswered: the router's close frame is answered with one
// carrying the same code.
func TestCloseAnswered(t *testing.T) {
	answer := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up := websocket.Upgrader{Subprotocols: []string{protoMsgPack}}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			answer <- err
			return
		}
		defer ws.Close()
		ws.SetCloseHandler(func(int, string) error { return nil }) // the server does not answer back
		if _, _, err := ws.ReadMessage(); err != nil {             // a router speaks after HELLO only
			answer <- err
			return
		}
		_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "bye"), time.Now().Add(5*time.Second))
		_, _, err = ws.ReadMessage()
		answer <- err
	}))
	defer srv.Close()
	l, err := dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), false, 5*time.Second, 5*time.Second, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close(errors.New("test over"))
	if err := l.sendControl(websocket.BinaryMessage, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.read(time.Now().Add(5 * time.Second)); !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Fatalf("the link read %v, want the router's close", err)
	}
	if err := <-answer; !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Errorf("the router read %v, want a close frame with code %d", err, websocket.CloseGoingAway)
	}
}
