package engine

import (
	"net"
	"testing"
	"time"
)

// deadlineConn counts the write deadlines set on it.
type deadlineConn struct {
	net.Conn
	writes int
}

func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	c.writes++
	return c.Conn.SetWriteDeadline(t)
}

// TestWriteDeadlineSetOnce checks that the write deadline gorilla sets
// before every frame reaches the socket only when it changes, and that one
// set with SetDeadline or refused by the socket is not taken as set.
func TestWriteDeadlineSetOnce(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	dc := &deadlineConn{Conn: a}
	fc := &frameConn{Conn: dc}
	t1 := time.Now().Add(time.Minute)
	for range 3 {
		if err := fc.SetWriteDeadline(t1); err != nil {
			t.Fatal(err)
		}
	}
	if dc.writes != 1 {
		t.Fatalf("the same deadline three times reached the socket %d times, want 1", dc.writes)
	}
	if err := fc.SetWriteDeadline(t1.Add(time.Second)); err != nil || dc.writes != 2 {
		t.Fatalf("a new deadline: err %v, %d sets, want 2", err, dc.writes)
	}
	t3 := t1.Add(2 * time.Second)
	if err := fc.SetDeadline(t3); err != nil {
		t.Fatal(err)
	}
	if err := fc.SetWriteDeadline(t3); err != nil || dc.writes != 2 {
		t.Fatalf("the deadline SetDeadline set: err %v, %d sets, want 2", err, dc.writes)
	}
	if err := fc.SetWriteDeadline(time.Time{}); err != nil || dc.writes != 3 {
		t.Fatalf("no deadline: err %v, %d sets, want 3", err, dc.writes)
	}
	// A socket that refuses the deadline leaves it unknown: the next set
	// of the same value is tried again.
	a.Close()
	if err := fc.SetWriteDeadline(t1); err == nil {
		t.Fatal("a closed pipe took a deadline")
	}
	if err := fc.SetWriteDeadline(t1); err == nil || dc.writes != 5 {
		t.Fatalf("the refused deadline again: err %v, %d sets, want 5", err, dc.writes)
	}
}
