// This file holds a minimal WAMP client over gorilla/websocket with the
// JSON serializer: dial, join with WAMP-CRA, requests waiting for their
// answer, the invocations of a registered procedure, keepalive and GOODBYE.

package main

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// WAMP message types used here.
const (
	msgHello        = 1
	msgWelcome      = 2
	msgAbort        = 3
	msgChallenge    = 4
	msgAuthenticate = 5
	msgGoodbye      = 6
	msgError        = 8
	msgPublish      = 16
	msgPublished    = 17
	msgCall         = 48
	msgResult       = 50
	msgRegister     = 64
	msgRegistered   = 65
	msgInvocation   = 68
	msgYield        = 70
)

// handler serves an invocation: its args and kwargs in, its result out.
type handler func(ctx context.Context, args []any, kwargs map[string]any) ([]any, error)

// session is one joined WAMP session.
type session struct {
	conn *websocket.Conn
	log  *slog.Logger

	wmu sync.Mutex // serialises writes

	mu       sync.Mutex
	nextID   uint64
	waiting  map[uint64]chan []json.RawMessage
	handlers map[uint64]handler // by registration id
	done     chan struct{}
	err      error
	leaving  atomic.Bool
}

// connect dials the router and joins the realm.
func connect(ctx context.Context, cfg *config, log *slog.Logger) (*session, error) {
	d := websocket.Dialer{
		Subprotocols:     []string{"wamp.2.json"},
		TLSClientConfig:  &tls.Config{MinVersion: tls.VersionTLS12},
		HandshakeTimeout: 10 * time.Second,
	}
	conn, resp, err := d.DialContext(ctx, cfg.url, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", cfg.url, err)
	}
	if conn.Subprotocol() != "wamp.2.json" {
		conn.Close()
		return nil, fmt.Errorf("dial %s: the router did not accept wamp.2.json", cfg.url)
	}
	s := &session{conn: conn, log: log, waiting: map[uint64]chan []json.RawMessage{}, handlers: map[uint64]handler{}, done: make(chan struct{})}
	if err := s.join(cfg); err != nil {
		conn.Close()
		return nil, err
	}
	go s.readLoop()
	go s.keepalive()
	return s, nil
}

// join runs HELLO → CHALLENGE → AUTHENTICATE → WELCOME.
func (s *session) join(cfg *config) error {
	roles := map[string]any{"publisher": map[string]any{}, "subscriber": map[string]any{}, "caller": map[string]any{}, "callee": map[string]any{}}
	if err := s.write(msgHello, cfg.realm(), map[string]any{"authid": cfg.authID, "authmethods": []string{"wampcra"}, "roles": roles}); err != nil {
		return err
	}
	_ = s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer s.conn.SetReadDeadline(time.Time{})
	for {
		msg, err := s.read()
		if err != nil {
			return fmt.Errorf("join %s: %w", cfg.realm(), err)
		}
		switch msgType(msg) {
		case msgChallenge:
			var extra struct {
				Challenge  string `json:"challenge"`
				Salt       string `json:"salt"`
				Iterations int    `json:"iterations"`
				KeyLen     int    `json:"keylen"`
			}
			if len(msg) < 3 || json.Unmarshal(msg[2], &extra) != nil {
				return errors.New("join: malformed CHALLENGE")
			}
			sig, err := craSignature(cfg.secret, extra.Challenge, extra.Salt, extra.Iterations, extra.KeyLen)
			if err != nil {
				return fmt.Errorf("join: %w", err)
			}
			if err := s.write(msgAuthenticate, sig, map[string]any{}); err != nil {
				return err
			}
		case msgWelcome:
			return nil
		case msgAbort:
			var reason string
			if len(msg) > 2 {
				_ = json.Unmarshal(msg[2], &reason)
			}
			return fmt.Errorf("join %s: the router refused: %s", cfg.realm(), reason)
		default:
			return fmt.Errorf("join %s: unexpected message type %d", cfg.realm(), msgType(msg))
		}
	}
}

// craSignature answers a WAMP-CRA challenge: HMAC-SHA256 of the challenge,
// keyed by the secret or, when the router salts it, by the base64 of its
// PBKDF2 derivation.
func craSignature(secret, challenge, salt string, iterations, keyLen int) (string, error) {
	key := []byte(secret)
	if salt != "" {
		if iterations == 0 {
			iterations = 1000
		}
		if keyLen == 0 {
			keyLen = 32
		}
		dk, err := pbkdf2.Key(sha256.New, secret, []byte(salt), iterations, keyLen)
		if err != nil {
			return "", err
		}
		key = []byte(base64.StdEncoding.EncodeToString(dk))
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(challenge))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// write sends one message: [typ, elems...].
func (s *session) write(typ int, elems ...any) error {
	b, err := json.Marshal(append([]any{typ}, elems...))
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return s.conn.WriteMessage(websocket.TextMessage, b)
}

// read reads one message as its list of raw elements.
func (s *session) read() ([]json.RawMessage, error) {
	_, b, err := s.conn.ReadMessage()
	if err != nil {
		return nil, err
	}
	var msg []json.RawMessage
	if err := json.Unmarshal(b, &msg); err != nil || len(msg) == 0 {
		return nil, fmt.Errorf("undecodable message %q", b)
	}
	return msg, nil
}

func msgType(msg []json.RawMessage) int {
	var t int
	_ = json.Unmarshal(msg[0], &t)
	return t
}

// id reads element i of msg as an ID (0 when it is not one).
func id(msg []json.RawMessage, i int) uint64 {
	var v uint64
	if i < len(msg) {
		_ = json.Unmarshal(msg[i], &v)
	}
	return v
}

// readLoop hands answers to the requests waiting for them and serves
// invocations, until the link ends.
func (s *session) readLoop() {
	for {
		msg, err := s.read()
		if err != nil {
			s.end(err)
			return
		}
		switch msgType(msg) {
		case msgPublished, msgResult, msgRegistered:
			s.answer(id(msg, 1), msg)
		case msgError:
			s.answer(id(msg, 2), msg)
		case msgInvocation:
			go s.invoke(msg)
		case msgGoodbye:
			if !s.leaving.Load() {
				_ = s.write(msgGoodbye, map[string]any{}, "wamp.close.goodbye_and_out")
			}
			s.end(errors.New("the session ended"))
			return
		}
	}
}

func (s *session) answer(req uint64, msg []json.RawMessage) {
	s.mu.Lock()
	ch := s.waiting[req]
	delete(s.waiting, req)
	s.mu.Unlock()
	if ch != nil {
		ch <- msg
	}
}

// end records why the link ended and closes it.
func (s *session) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
	default:
		s.err = err
		close(s.done)
		s.conn.Close()
	}
}

// keepalive pings every 20 s.
func (s *session) keepalive() {
	t := time.NewTicker(20 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			if err := s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(10*time.Second)); err != nil {
				s.end(err)
				return
			}
		}
	}
}

// request sends [typ, id, elems...] and waits for the answer to id.
func (s *session) request(ctx context.Context, typ int, elems ...any) ([]json.RawMessage, error) {
	ch := make(chan []json.RawMessage, 1)
	s.mu.Lock()
	s.nextID++
	req := s.nextID
	s.waiting[req] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiting, req)
		s.mu.Unlock()
	}()
	if err := s.write(typ, append([]any{req}, elems...)...); err != nil {
		return nil, err
	}
	select {
	case msg := <-ch:
		if msgType(msg) == msgError {
			var uri string
			if len(msg) > 4 {
				_ = json.Unmarshal(msg[4], &uri)
			}
			return nil, fmt.Errorf("refused: %s", uri)
		}
		return msg, nil
	case <-s.done:
		return nil, fmt.Errorf("connection lost: %w", s.err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// publish publishes args and kwargs to topic, acknowledged.
func (s *session) publish(ctx context.Context, topic string, args []any, kwargs map[string]any) error {
	_, err := s.request(ctx, msgPublish, map[string]any{"acknowledge": true}, topic, args, kwargs)
	return err
}

// call calls procedure and returns the first positional result.
func (s *session) call(ctx context.Context, procedure string, args []any, kwargs map[string]any) (json.RawMessage, error) {
	elems := []any{map[string]any{}, procedure, args}
	if kwargs != nil {
		elems = append(elems, kwargs)
	}
	msg, err := s.request(ctx, msgCall, elems...)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", procedure, err)
	}
	var res []json.RawMessage
	if len(msg) > 3 {
		if err := json.Unmarshal(msg[3], &res); err != nil {
			return nil, fmt.Errorf("call %s: %w", procedure, err)
		}
	}
	if len(res) == 0 {
		return nil, nil
	}
	return res[0], nil
}

// register registers procedure, taking it over from another session.
func (s *session) register(ctx context.Context, procedure string, h handler) error {
	msg, err := s.request(ctx, msgRegister, map[string]any{"force_reregister": true}, procedure)
	if err != nil {
		return fmt.Errorf("register %s: %w", procedure, err)
	}
	s.mu.Lock()
	s.handlers[id(msg, 2)] = h
	s.mu.Unlock()
	return nil
}

// invoke serves an INVOCATION [68, request, registration, details, args, kwargs].
func (s *session) invoke(msg []json.RawMessage) {
	req := id(msg, 1)
	s.mu.Lock()
	h := s.handlers[id(msg, 2)]
	s.mu.Unlock()
	var args []any
	var kwargs map[string]any
	if len(msg) > 4 {
		_ = json.Unmarshal(msg[4], &args)
	}
	if len(msg) > 5 {
		_ = json.Unmarshal(msg[5], &kwargs)
	}
	if h == nil {
		_ = s.write(msgError, msgInvocation, req, map[string]any{}, "wamp.error.no_such_procedure")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := h(ctx, args, kwargs)
	if err != nil {
		_ = s.write(msgError, msgInvocation, req, map[string]any{}, "wamp.error.runtime_error", []any{err.Error()})
		return
	}
	if err := s.write(msgYield, req, map[string]any{}, res); err != nil {
		s.log.Warn("yield", "err", err)
	}
}

// leave sends GOODBYE and closes the link.
func (s *session) leave() {
	s.leaving.Store(true)
	_ = s.write(msgGoodbye, map[string]any{}, "wamp.close.close_realm")
	select {
	case <-s.done:
	case <-time.After(2 * time.Second):
	}
	s.end(errors.New("left"))
}
