package router

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net"
	"testing"
)

// maskedFrames returns client frames (masked binary frames) with payloads
// of the given lengths, and where each frame ends in the stream.
func maskedFrames(lengths ...int) (stream []byte, ends []int) {
	for i, n := range lengths {
		stream = append(stream, 0x82) // FIN, binary
		switch {
		case n < 126:
			stream = append(stream, 0x80|byte(n))
		case n <= 0xffff:
			stream = append(stream, 0x80|126)
			stream = binary.BigEndian.AppendUint16(stream, uint16(n))
		default:
			stream = append(stream, 0x80|127)
			stream = binary.BigEndian.AppendUint64(stream, uint64(n))
		}
		stream = append(stream, 1, 2, 3, 4) // the mask
		for j := range n {
			stream = append(stream, byte(i+j))
		}
		ends = append(ends, len(stream))
	}
	return stream, ends
}

// TestFrameBoundStopsAtFrameEnds passes a stream of frames of every
// length form in random pieces, as much as room allows each time, and
// checks that no piece crosses the end of a frame and that atStart holds
// exactly at the ends.
func TestFrameBoundStopsAtFrameEnds(t *testing.T) {
	stream, ends := maskedFrames(0, 1, 125, 126, 200, 0xffff, 0x10000, 70000, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		var f frameBound
		pos, next := 0, 0
		for pos < len(stream) {
			if f.atStart() != (pos == 0 || next > 0 && pos == ends[next-1]) {
				t.Fatalf("round %d: at %d atStart() = %v", round, pos, f.atStart())
			}
			room := f.room()
			if room <= 0 {
				t.Fatalf("round %d: no room at %d", round, pos)
			}
			n := min(room, 1+rng.IntN(5000), len(stream)-pos)
			if pos+n > ends[next] {
				t.Fatalf("round %d: %d bytes from %d would cross the frame end at %d", round, n, pos, ends[next])
			}
			f.pass(stream[pos : pos+n])
			pos += n
			if pos == ends[next] {
				next++
			}
		}
		if !f.atStart() || next != len(ends) {
			t.Fatalf("round %d: the stream ended inside a frame (%d of %d frames)", round, next, len(ends))
		}
	}
}

// TestLentReaderReadsWhatWasSent reads frames sent over a TCP connection
// in gorilla-sized pieces through a lentReader, waiting before each frame
// as the link's reader does, and checks that every byte arrives in order
// and that no buffer is held once a frame is read and nothing else waits.
func TestLentReaderReadsWhatWasSent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stream, ends := maskedFrames(5, 300, 126, 70000, 0, 9000)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		for i, end := range ends { // one frame at a time, the last ones at once
			start := 0
			if i > 0 {
				start = ends[i-1]
			}
			if i >= 3 {
				end = len(stream)
			}
			if _, err := c.Write(stream[start:end]); err != nil || end == len(stream) {
				return
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var lr lentReader
	lr.init(c)
	var got []byte
	b := make([]byte, readBufferSize)
	for len(got) < len(stream) {
		if lr.frame.atStart() {
			lr.wait()
		}
		n, err := lr.read(c, b)
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(got), err)
		}
		got = append(got, b[:n]...)
	}
	if !bytes.Equal(got, stream) {
		t.Fatal("the bytes read differ from those sent")
	}
	if lr.buf != nil {
		t.Error("a lent buffer is held with nothing left to read")
	}
	if n, err := lr.read(c, b); err != io.EOF {
		t.Errorf("read after the end: %d, %v; want io.EOF", n, err)
	}
}
