package client

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// session is one joined WAMP session on a link. Its reader goroutine
// dispatches every message: replies go to the waiting request, events to the
// subscriptions' mailboxes, invocations to handler goroutines. Replies that
// install state (SUBSCRIBED, REGISTERED) are applied on the reader before
// the next message is read, so an EVENT or INVOCATION right behind them is
// never lost.
type session struct {
	c     *Client
	l     *link
	id    uint64
	realm string
	reqID atomic.Uint64

	mu       sync.Mutex
	pending  map[uint64]*request
	subs     map[uint64]*subGroup // router subscription id → group
	groupIDs map[*subGroup]uint64
	regs     map[uint64]*Registration // router registration id → registration
	regIDs   map[*Registration]uint64
	invs     map[uint64]*invocationState

	ctx        context.Context // ends with the link; parent of handler contexts
	cancel     context.CancelFunc
	leaving    atomic.Bool
	goodbyeAck chan struct{}
	handlers   sync.WaitGroup
}

// request is a message waiting for the router's answer.
type request struct {
	ch       chan wamp.Message      // the final answer (capacity 1)
	progress *mailbox[*wamp.Result] // progressive results, for calls asking for them
	// onReply runs on the reader for the final answer, before the caller
	// sees it. onLate runs instead when the caller has given up.
	onReply func(wamp.Message)
	onLate  func(wamp.Message)
	gaveUp  bool // guarded by session.mu
}

type invocationState struct {
	cancel      context.CancelFunc
	interrupted atomic.Bool
}

func newRequest() *request { return &request{ch: make(chan wamp.Message, 1)} }

func newSession(c *Client, l *link, id uint64, realm string) *session {
	s := &session{
		c:          c,
		l:          l,
		id:         id,
		realm:      realm,
		pending:    map[uint64]*request{},
		subs:       map[uint64]*subGroup{},
		groupIDs:   map[*subGroup]uint64{},
		regs:       map[uint64]*Registration{},
		regIDs:     map[*Registration]uint64{},
		invs:       map[uint64]*invocationState{},
		goodbyeAck: make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// nextID returns a session-scoped request ID (1 … 2^53).
func (s *session) nextID() wamp.ID { return wamp.ID(s.reqID.Add(1)) }

func (s *session) alive() bool { return s.l.reason() == nil }

func (s *session) lostErr() error {
	if r := s.l.reason(); r != nil && r != ErrStopped {
		return fmt.Errorf("%w: %v", ErrConnectionLost, r)
	}
	if s.c.isStopped() {
		return ErrStopped
	}
	return ErrConnectionLost
}

// send registers req under id (when req is not nil) and writes msg.
func (s *session) send(id wamp.ID, msg wamp.Message, req *request) error {
	if req != nil {
		s.mu.Lock()
		if !s.alive() {
			s.mu.Unlock()
			return s.lostErr()
		}
		s.pending[uint64(id)] = req
		s.mu.Unlock()
	}
	if err := s.l.write(msg); err != nil {
		if req != nil {
			s.mu.Lock()
			delete(s.pending, uint64(id))
			s.mu.Unlock()
		}
		if err == ErrConnectionLost {
			return s.lostErr()
		}
		return err
	}
	return nil
}

// await waits for the final answer to req.
func (s *session) await(ctx context.Context, id wamp.ID, req *request, timeout time.Duration) (wamp.Message, error) {
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case m := <-req.ch:
		return m, nil
	case <-s.l.closed:
		select {
		case m := <-req.ch:
			return m, nil
		default:
		}
		return nil, s.lostErr()
	case <-ctx.Done():
		s.giveUp(id, req)
		return nil, ctx.Err()
	case <-expire:
		s.giveUp(id, req)
		return nil, ErrTimeout
	case <-s.c.stopCh:
		s.giveUp(id, req)
		return nil, ErrStopped
	}
}

// roundTrip sends msg and waits for its answer.
func (s *session) roundTrip(ctx context.Context, id wamp.ID, msg wamp.Message, req *request, timeout time.Duration) (wamp.Message, error) {
	if err := s.send(id, msg, req); err != nil {
		return nil, err
	}
	return s.await(ctx, id, req, timeout)
}

// giveUp forgets a request whose caller stopped waiting; an answer that
// still comes is handed to onLate, if any.
func (s *session) giveUp(id wamp.ID, req *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.onLate == nil {
		delete(s.pending, uint64(id))
		return
	}
	req.gaveUp = true
}

// readLoop dispatches messages until the link ends.
func (s *session) readLoop() {
	defer s.cancel()
	for {
		msg, err := s.l.read(time.Time{})
		if err != nil {
			if s.leaving.Load() {
				s.l.close(ErrStopped)
			} else {
				s.l.close(fmt.Errorf("read: %w", err))
			}
			return
		}
		if !s.dispatch(msg) {
			return
		}
	}
}

// dispatch handles one message; it returns false when the session ended.
func (s *session) dispatch(msg wamp.Message) bool {
	switch m := msg.(type) {
	case *wamp.Event:
		s.onEvent(m)
	case *wamp.Invocation:
		s.onInvocation(m)
	case *wamp.Interrupt:
		s.onInterrupt(m)
	case *wamp.Result:
		progress, _ := m.Details[wire.OptProgress].(bool)
		s.reply(uint64(m.Request), m, progress)
	case *wamp.Error:
		s.reply(uint64(m.Request), m, false)
	case *wamp.Published:
		s.reply(uint64(m.Request), m, false)
	case *wamp.Subscribed:
		s.reply(uint64(m.Request), m, false)
	case *wamp.Unsubscribed:
		s.reply(uint64(m.Request), m, false)
	case *wamp.Registered:
		s.reply(uint64(m.Request), m, false)
	case *wamp.Unregistered:
		s.reply(uint64(m.Request), m, false)
	case revoked:
		s.onRevoked(m)
	case *wamp.Goodbye:
		if s.leaving.Load() {
			close(s.goodbyeAck)
			s.l.close(ErrStopped)
			return false
		}
		_ = s.l.write(&wamp.Goodbye{Reason: wamp.URI(wire.CloseGoodbyeAndOut), Details: wamp.Dict{}})
		s.l.close(fmt.Errorf("the router ended the session: %s", m.Reason))
		return false
	case *wamp.Abort:
		s.l.close(fmt.Errorf("the router aborted the session: %s", m.Reason))
		return false
	default:
		s.c.log.Debug("ironflock: unexpected message from the router", "type", msg.MessageType().String())
	}
	return true
}

func (s *session) reply(id uint64, m wamp.Message, progress bool) {
	s.mu.Lock()
	req := s.pending[id]
	if req == nil {
		s.mu.Unlock()
		return
	}
	if progress && req.progress != nil {
		s.mu.Unlock()
		req.progress.put(m.(*wamp.Result))
		return
	}
	delete(s.pending, id)
	gaveUp := req.gaveUp
	s.mu.Unlock()
	if gaveUp {
		if req.onLate != nil {
			req.onLate(m)
		}
		return
	}
	if req.onReply != nil {
		req.onReply(m)
	}
	req.ch <- m
}

// leave sends GOODBYE and waits for the router's answer within ctx and the
// response timeout; it never blocks on a dead writer.
func (s *session) leave(ctx context.Context) {
	if !s.alive() {
		return
	}
	s.leaving.Store(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.l.write(&wamp.Goodbye{Reason: wamp.URI(wire.CloseRealm), Details: wamp.Dict{}})
	}()
	t := time.NewTimer(s.c.set.responseTimeout)
	defer t.Stop()
	select {
	case <-s.goodbyeAck:
	case <-s.l.closed:
	case <-t.C:
	case <-ctx.Done():
	}
	s.l.close(ErrStopped)
	<-done
}

// errorFromMessage turns an ERROR message into a *WampError.
func errorFromMessage(m *wamp.Error) *WampError {
	return &WampError{URI: string(m.Error), Args: []any(m.Arguments), Kwargs: map[string]any(m.ArgumentsKw)}
}

// unexpected reports an answer of the wrong type.
func unexpected(m wamp.Message, want string) error {
	if e, ok := m.(*wamp.Error); ok {
		return errorFromMessage(e)
	}
	return fmt.Errorf("unexpected %s from the router, want %s", m.MessageType(), want)
}
