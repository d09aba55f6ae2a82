// This file holds the Session: its Config, Connect, the requests waiting
// for the router's answer, the dispatch of every message read, and
// GOODBYE. Who reads is in leader.go.

package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Config says where a Session connects, as whom, and its timings.
type Config struct {
	// URL is the router's WebSocket URL.
	URL string
	// Realm is the realm to join.
	Realm string
	// AuthID is the authid HELLO announces; empty omits it (anonymous).
	AuthID string
	// Auth lists the authentication methods HELLO offers, in order of
	// preference; the router picks one and the session answers its
	// challenge.
	Auth []AuthMethod
	// JSON selects wamp.2.json; the default is wamp.2.msgpack.
	JSON bool
	// HandshakeTimeout bounds the WebSocket handshake.
	HandshakeTimeout time.Duration
	// ResponseTimeout bounds each join step and each write (a write gets
	// between ResponseTimeout and 1.5 × ResponseTimeout: the deadline is
	// moved once half of its margin is used), and the wait for the router's
	// answer to SUBSCRIBE, REGISTER, their removal, an acknowledged PUBLISH
	// and GOODBYE.
	ResponseTimeout time.Duration
	// KeepaliveIdle is the silence after which the link is pinged;
	// PongTimeout how long after the ping some traffic must arrive before
	// the link is dropped. Any incoming frame counts as traffic.
	KeepaliveIdle, PongTimeout time.Duration
	// Stop, once closed, ends every operation still waiting with ErrStopped.
	// nil never ends them.
	Stop <-chan struct{}
	// Logger receives the engine's warnings; nil discards them.
	Logger *slog.Logger
	// Counters, when set, count the messages and bytes of the session's
	// link, its join included.
	Counters *Counters
	// OnPong, when set, gets the round trip of every keepalive ping the
	// router answers, on the reader's goroutine: it must not block.
	OnPong func(rtt time.Duration)
	// Dial, when set, opens the TCP connection under the WebSocket instead
	// of a net.Dialer (a chosen local address, a connection the owner
	// tracks); TLS for wss is still done here, over the connection it
	// returns.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	clock clock // keepalive's time; nil is the system clock (tests set it)
	// plainConn dials without frameConn, as for wss through a proxy: the
	// session's goroutine reads alone (tests set it).
	plainConn bool
	// idleGrace replaces the package's idleGrace when positive (tests set
	// it).
	idleGrace time.Duration
}

// Session is one joined WAMP session on one link. One goroutine at a time
// reads the link and dispatches every message: replies go to the waiting
// request, events to their Topic, invocations to handler goroutines. The
// reader is a caller waiting for its answer when one finds the role free,
// else the session's own goroutine (leader.go). Replies that install state
// (SUBSCRIBED, REGISTERED) are applied by the reader before the next
// message is read, so an EVENT or INVOCATION right behind them is never
// lost. A Session never reconnects: once it ended (Done), the owner
// connects a new one.
type Session struct {
	l               *link
	realm           string
	welcome         welcome
	stop            <-chan struct{}
	responseTimeout time.Duration
	log             *slog.Logger
	reqID           atomic.Uint64

	mu      sync.Mutex
	pending pendingTable
	subs    map[uint64]*Topic     // router subscription id → topic
	regs    map[uint64]*Procedure // router registration id → procedure
	// The contexts of the invocations in flight, by request id (made by
	// the first); once the session ended (invsEnded), new ones start ended.
	invs      map[uint64]*invocationCtx
	invsEnded bool
	workers   workers
	// The session's goroutine serving invocations itself (inline.go): its
	// generation, the handler it runs (inlineNow, of inlineProc; 0: none),
	// and the watch on it.
	gen        uint64
	inlineSeq  uint64
	inlineNow  uint64
	inlineProc *Procedure
	watch      *time.Timer // made by the first handler the session's goroutine runs
	watchArmed bool
	watchSeq   uint64

	// The reader role (leader.go), guarded by mu: who holds it, the caller
	// holding it, the callers waiting for their answer meanwhile (oldest
	// first), the timer after which the session's goroutine takes a free
	// role, and the kick that makes it take the role at once.
	role      int
	leader    *request
	followers []*request
	idle      *time.Timer
	idleArmed bool      // idle runs
	handed    bool      // a caller gave the role to the session's goroutine
	freeAt    time.Time // when the role was last freed
	grace     time.Duration
	wake      chan struct{}
	// hook interrupts a fill when the ctx of the caller reading ends
	// (ctxhook.go); interrupt is the link's, bound once.
	hook      ctxHook
	interrupt func()

	ctx        context.Context // ends with the link; parent of handler contexts
	cancel     context.CancelFunc
	onEnd      func() // OnEnd's function, under mu, until ctx ends
	leaving    atomic.Bool
	goodbyeAck chan struct{}
	handlers   sync.WaitGroup
}

// request is a message waiting for the router's answer.
type request struct {
	ch       chan message         // the final answer (capacity 1)
	progress *mailbox[*resultMsg] // progressive results, for calls asking for them
	// onReply runs on the reader for the final answer, before the caller
	// sees it. onLate runs instead when the caller has given up.
	onReply func(message)
	onLate  func(message)
	// Guarded by Session.mu: the caller gave up (with onLate); the final
	// answer was taken for it; it waits among the followers; it stopped
	// waiting.
	gaveUp, answered, following, left bool
	// timer bounds a follower's wait; stopped when the wait ends, it stays
	// with the request through recycling.
	timer *time.Timer
	// The messages of a request and of its answer, kept here so that they
	// are recycled with it: the PUBLISH of a Publish and the CALL of a Call
	// with a copy of its arguments (each only read until written), and the
	// PUBLISHED or RESULT answering them (the reader copies the one it
	// read lazily here before handing it over).
	pub       publishMsg
	call      callMsg
	args      []any
	published publishedMsg
	result    resultMsg
	// raw asks for the final RESULT's payload encoded: a checked copy in
	// rawBuf (result.raw), which stays with the request through recycling,
	// as does the reader the caller reads it with.
	raw    bool
	rawBuf []byte
	reader Reader
}

// requests recycles the requests whose caller took the answer: see recycle.
var requestPool = sync.Pool{New: func() any { return &request{ch: make(chan message, 1)} }}

// newRequest returns an empty request.
func newRequest() *request { return requestPool.Get().(*request) }

// recycle returns req, whose caller took its final answer from ch, to the
// pool when nothing refers to it any more: it was answered (so it left the
// pending map), it is not among the followers (it leaves them only when
// the role passes), and it has no callbacks or mailbox someone could hold.
func (s *Session) recycle(req *request) {
	if req.onReply != nil || req.onLate != nil || req.progress != nil {
		return
	}
	s.mu.Lock()
	ok := req.answered && !req.following && s.leader != req
	s.mu.Unlock()
	if ok {
		req.reset()
		requestPool.Put(req)
	}
}

// reset empties req for its next request, keeping its channel, timer and
// buffers (but large ones), and its reader's texts.
func (req *request) reset() {
	clear(req.args)
	req.args = req.args[:0]
	req.progress, req.onReply, req.onLate = nil, nil, nil
	req.gaveUp, req.answered, req.following, req.left = false, false, false, false
	req.pub, req.call, req.published, req.result = publishMsg{}, callMsg{}, publishedMsg{}, resultMsg{}
	req.raw = false
	if cap(req.rawBuf) > maxKeptBuffer {
		req.rawBuf = nil
	}
	req.reader.release()
}

// Connect dials the router, joins cfg.Realm with the authentication
// methods of cfg and starts the session's reader and keepalive. A join the
// router refuses returns an *Error with the ABORT reason. ctx bounds the
// dial and the join only.
func Connect(ctx context.Context, cfg Config) (*Session, error) {
	l, err := dial(ctx, cfg.URL, cfg.JSON, cfg.HandshakeTimeout, cfg.ResponseTimeout, cfg.clock, cfg.plainConn, cfg.Dial)
	if err != nil {
		return nil, err
	}
	l.counters, l.onPong = cfg.Counters, cfg.OnPong
	w, err := join(ctx, l, cfg.Realm, cfg.AuthID, cfg.Auth, cfg.ResponseTimeout)
	if err != nil {
		l.close(err)
		return nil, err
	}
	s := &Session{
		l:               l,
		realm:           cfg.Realm,
		welcome:         w,
		stop:            cfg.Stop,
		responseTimeout: cfg.ResponseTimeout,
		log:             cfg.Logger,
		subs:            map[uint64]*Topic{},
		regs:            map[uint64]*Procedure{},
		goodbyeAck:      make(chan struct{}),
		idle:            time.NewTimer(time.Hour),
		grace:           idleGrace,
		wake:            make(chan struct{}, 1),
	}
	s.interrupt = l.interrupt
	s.idle.Stop()
	if cfg.idleGrace > 0 {
		s.grace = cfg.idleGrace
	}
	s.wake <- struct{}{} // the session's goroutine reads first
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	go s.readLoop(0)
	l.startKeepalive(cfg.KeepaliveIdle, cfg.PongTimeout)
	return s, nil
}

// ID returns the session id the router assigned.
func (s *Session) ID() uint64 { return s.welcome.id }

// Realm returns the realm joined.
func (s *Session) Realm() string { return s.realm }

// Details returns a copy of the details of the router's WELCOME.
func (s *Session) Details() map[string]any { return s.welcome.detailsDict() }

// Alive reports whether the link is still open.
func (s *Session) Alive() bool { return s.l.reason() == nil }

// Done is closed when the link has ended.
func (s *Session) Done() <-chan struct{} { return s.l.closed }

// Err returns why the link ended, nil while it is open.
func (s *Session) Err() error { return s.l.reason() }

// Context returns a context that ends shortly after the link: the parent of
// every invocation handler's context.
func (s *Session) Context() context.Context { return s.ctx }

// OnEnd arranges for f to run on a goroutine of its own once the
// session's Context has ended, as context.AfterFunc would, without a
// registration on the context: the owner's one function (a second call
// replaces the first). f runs at once when the context has ended already.
func (s *Session) OnEnd(f func()) {
	s.mu.Lock()
	if s.ctx.Err() == nil {
		s.onEnd = f
		f = nil
	}
	s.mu.Unlock()
	if f != nil {
		go f()
	}
}

// ended ends the session's Context and starts OnEnd's function.
func (s *Session) ended() {
	s.cancel()
	s.mu.Lock()
	f := s.onEnd
	s.onEnd = nil
	s.mu.Unlock()
	if f != nil {
		go f()
	}
}

// Close ends the link at once with reason (the first reason wins).
func (s *Session) Close(reason error) { s.l.close(reason) }

func (s *Session) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// nextID returns a session-scoped request ID (1 … 2^53).
func (s *Session) nextID() uint64 { return s.reqID.Add(1) }

// sendSized registers req under id (when req is not nil) and writes msg. A
// write that fails sent nothing: a WebSocket message the link could not
// write whole never reaches the router.
//
// It returns the size of msg as written.
func (s *Session) sendSized(id uint64, msg message, req *request) (int, error) {
	if req != nil {
		s.mu.Lock()
		if !s.Alive() {
			s.mu.Unlock()
			return 0, s.lost(false)
		}
		s.pending.put(id, req)
		s.mu.Unlock()
	}
	n, err := s.l.writeSized(msg)
	if err != nil {
		if req != nil {
			s.mu.Lock()
			s.pending.remove(id)
			s.mu.Unlock()
		}
		if err == ErrConnectionLost {
			return 0, s.lost(false)
		}
		return 0, err
	}
	return n, nil
}

// roundTrip sends msg and waits for its answer.
func (s *Session) roundTrip(ctx context.Context, id uint64, msg message, req *request, timeout time.Duration, sent *int) (message, error) {
	n, err := s.sendSized(id, msg, req)
	if err != nil {
		return nil, err
	}
	if sent != nil {
		*sent = n
	}
	return s.wait(ctx, id, req, timeout, nil)
}

// expect sends msg and waits, within ctx and the response timeout, for an
// answer of type want; an ERROR answer is an *Error.
func (s *Session) expect(ctx context.Context, id uint64, msg message, req *request, want msgType) error {
	return s.expectSized(ctx, id, msg, req, want, nil)
}

// expectSized is expect, which also stores the size of msg as written in
// *sent, when sent is not nil.
func (s *Session) expectSized(ctx context.Context, id uint64, msg message, req *request, want msgType, sent *int) error {
	m, err := s.roundTrip(ctx, id, msg, req, s.responseTimeout, sent)
	if err != nil {
		return err
	}
	if m.kind() != want {
		err = unexpected(m, want.String())
	}
	s.recycle(req)
	return err
}

// giveUp forgets a request whose caller stopped waiting; an answer that
// still comes is handed to onLate, if any. A caller holding the reader
// role, or just handed it, hands it on.
func (s *Session) giveUp(id uint64, req *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.left = true
	if s.leader == req {
		select {
		case <-req.ch: // the promotion (only the holder dispatches answers)
		default:
		}
		s.handOnLocked()
	}
	if req.onLate == nil {
		s.pending.remove(id)
		return
	}
	req.gaveUp = true
}

// dispatch handles one message; it returns false when the session ended.
func (s *Session) dispatch(msg message) bool {
	switch m := msg.(type) {
	case *eventMsg:
		s.onEvent(m)
	case *invocationMsg:
		return s.onInvocation(m)
	case *interruptMsg:
		s.onInterrupt(m)
	case *resultMsg:
		return s.reply(m.Request, m, m.progress)
	case *errorMsg:
		s.reply(m.Request, m, false)
	case *publishedMsg:
		s.reply(m.Request, m, false)
	case *subscribedMsg:
		s.reply(m.Request, m, false)
	case *unsubscribedMsg:
		s.reply(m.Request, m, false)
	case *registeredMsg:
		s.reply(m.Request, m, false)
	case *unregisteredMsg:
		if m.Request == 0 {
			s.onRevoked(m.Registration)
		} else {
			s.reply(m.Request, m, false)
		}
	case *goodbyeMsg:
		if s.leaving.Load() {
			close(s.goodbyeAck)
			s.l.close(ErrStopped)
			return false
		}
		_ = s.l.write(&goodbyeMsg{Reason: wire.CloseGoodbyeAndOut, Details: map[string]any{}})
		s.l.close(fmt.Errorf("the router ended the session: %s", m.Reason))
		return false
	case abort:
		s.l.close(fmt.Errorf("the router aborted the session: %s", m.describe()))
		return false
	default:
		s.log.Debug("ironflock: unexpected message from the router", "type", msg.kind().String())
	}
	return true
}

// reply hands m, the answer to request id, to its request; it returns
// false when m's payload was malformed, which ended the link.
func (s *Session) reply(id uint64, m message, progress bool) bool {
	s.mu.Lock()
	req := s.pending.get(id)
	if req == nil {
		s.mu.Unlock()
		return s.settleUnwanted(m)
	}
	if progress && req.progress != nil {
		s.mu.Unlock()
		r, err := s.settled(m.(*resultMsg))
		if err != nil {
			return s.undecodable(m, err)
		}
		req.progress.put(r)
		return true
	}
	s.pending.remove(id)
	req.answered = true
	gaveUp := req.gaveUp
	s.mu.Unlock()
	// The request is the caller's alone until m is handed over: it copies
	// what the link read lazily.
	switch x := m.(type) {
	case *publishedMsg:
		req.published = *x
		m = &req.published
	case *resultMsg:
		req.result = *x
		switch {
		case !x.raw.lazy && req.raw:
			// Decoded as a whole (not the lazy read): encoded again, so
			// that the caller reads it as ever.
			req.result.raw, req.rawBuf = encodePayload(req.rawBuf, s.l.json, x.Args, x.Kwargs)
		case !x.raw.lazy:
		case req.raw:
			if err := x.raw.check(); err != nil {
				return s.undecodable(m, err)
			}
			req.result.raw = x.raw.copyTo(req.rawBuf)
			req.rawBuf = req.result.raw.b
		default:
			var err error
			req.result.Args, req.result.Kwargs, err = x.raw.decode(s.l.keyCache(), &s.l.jstack)
			if err != nil {
				return s.undecodable(m, err)
			}
			req.result.raw = rawPayload{}
		}
		m = &req.result
	}
	if gaveUp {
		if req.onLate != nil {
			req.onLate(m)
		}
		return true
	}
	if req.onReply != nil {
		req.onReply(m)
	}
	req.ch <- m
	return true
}

// settled returns r with its payload decoded: r itself when it was not
// read lazily, else a new message.
func (s *Session) settled(r *resultMsg) (*resultMsg, error) {
	if !r.raw.lazy {
		return r, nil
	}
	args, kwargs, err := r.raw.decode(s.l.keyCache(), &s.l.jstack)
	if err != nil {
		return nil, err
	}
	return &resultMsg{Request: r.Request, Args: args, Kwargs: kwargs, progress: r.progress}, nil
}

// settleUnwanted checks the payload of an answer nobody waits for, as its
// decoding did when every message was decoded as it was read.
func (s *Session) settleUnwanted(m message) bool {
	if r, ok := m.(*resultMsg); ok && r.raw.lazy {
		if err := r.raw.check(); err != nil {
			return s.undecodable(m, err)
		}
	}
	return true
}

// undecodable ends the link over m's malformed payload.
func (s *Session) undecodable(m message, err error) bool {
	s.l.close(fmt.Errorf("read: undecodable message from the router: %s: %w", m.kind(), err))
	return false
}

// Leave sends GOODBYE and waits for the router's answer within ctx and the
// response timeout; it never blocks on a dead writer. It then waits, within
// ctx, for running invocation handlers to return, and returns ctx's error
// if that bound was hit.
func (s *Session) Leave(ctx context.Context) error {
	s.leave(ctx)
	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Session) leave(ctx context.Context) {
	if !s.Alive() {
		return
	}
	s.leaving.Store(true)
	// Someone must read the answer: the session's goroutine takes a free
	// reader role at once.
	select {
	case s.wake <- struct{}{}:
	default:
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.l.write(&goodbyeMsg{Reason: wire.CloseRealm, Details: map[string]any{}})
	}()
	t := time.NewTimer(s.responseTimeout)
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
