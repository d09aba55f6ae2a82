// This file holds what subscribing and registering share: the request
// whose answer installs a router id on the reader, and the two-way maps
// between router ids and the owner's Topics and Procedures.

package engine

import "context"

// establish sends msg (SUBSCRIBE or REGISTER) and waits for want
// (SUBSCRIBED or REGISTERED). install runs on the reader as the answer
// arrives, before the next message is read, even when the caller gave up
// meanwhile, so nothing the router sends right behind is lost.
func (s *Session) establish(ctx context.Context, id uint64, msg message, want msgType, install func(routerID uint64)) error {
	req := newRequest()
	onAnswer := func(m message) {
		switch a := m.(type) {
		case *subscribedMsg:
			install(a.Subscription)
		case *registeredMsg:
			install(a.Registration)
		}
	}
	req.onReply, req.onLate = onAnswer, onAnswer
	return s.expect(ctx, id, msg, req, want)
}

// bound reports whether k is installed on s.
func bound[K comparable](s *Session, ids map[K]uint64, k K) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := ids[k]
	return ok
}

// bind maps the router's id to k both ways.
func bind[K comparable](s *Session, byID map[uint64]K, ids map[K]uint64, id uint64, k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byID[id], ids[k] = k, id
}

// unbind removes k's mapping and returns the router's id it had.
func unbind[K comparable](s *Session, byID map[uint64]K, ids map[K]uint64, k K) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := ids[k]
	if ok {
		delete(ids, k)
		delete(byID, id)
	}
	return id, ok
}
