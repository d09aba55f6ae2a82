// This file holds the limits that keep the router's memory bounded under
// hostile or slow peers, with their defaults.

package router

import "time"

// Limits bound what one link may cost the router.
type Limits struct {
	// MaxMessageBytes bounds one inbound message of a joined session.
	MaxMessageBytes int64
	// PreAuthBytes bounds everything a WebSocket link may send before its
	// session is admitted (HELLO, AUTHENTICATE); a link beyond it is
	// closed.
	PreAuthBytes int64
	// MaxUnauthenticated bounds the WebSocket links waiting to be
	// admitted; more are answered 503.
	MaxUnauthenticated int
	// QueueMessages and QueueBytes bound the frames queued for one link;
	// a link whose queue overflows is dropped. A single frame larger than
	// QueueBytes is queued when the queue is empty.
	QueueMessages int
	QueueBytes    int
	// WriteTimeout bounds the write of one frame; a link that cannot take
	// a frame in that time is dropped.
	WriteTimeout time.Duration
	// PingTimeout bounds the write of one keepalive ping.
	PingTimeout time.Duration
	// AuthResponseTimeout bounds the wait for AUTHENTICATE after CHALLENGE;
	// a link that has not answered by then is refused (no_response).
	AuthResponseTimeout time.Duration
}

// DefaultLimits returns the limits a Router uses unless told otherwise.
func DefaultLimits() Limits {
	return Limits{
		MaxMessageBytes:     64 << 20,
		PreAuthBytes:        64 << 10,
		MaxUnauthenticated:  256,
		QueueMessages:       1 << 15,
		QueueBytes:          64 << 20,
		WriteTimeout:        10 * time.Second,
		PingTimeout:         5 * time.Second,
		AuthResponseTimeout: 10 * time.Second,
	}
}

// orDefault fills the zero fields of l from DefaultLimits.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = d.MaxMessageBytes
	}
	if l.PreAuthBytes <= 0 {
		l.PreAuthBytes = d.PreAuthBytes
	}
	if l.MaxUnauthenticated <= 0 {
		l.MaxUnauthenticated = d.MaxUnauthenticated
	}
	if l.QueueMessages <= 0 {
		l.QueueMessages = d.QueueMessages
	}
	if l.QueueBytes <= 0 {
		l.QueueBytes = d.QueueBytes
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = d.WriteTimeout
	}
	if l.PingTimeout <= 0 {
		l.PingTimeout = d.PingTimeout
	}
	if l.AuthResponseTimeout <= 0 {
		l.AuthResponseTimeout = d.AuthResponseTimeout
	}
	return l
}
