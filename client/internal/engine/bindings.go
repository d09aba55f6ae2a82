// This file holds what subscribing and registering share: the request
// whose answer installs a router id on the reader, and the maps from
// router ids to the owner's Topics and Procedures.

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

// idOf returns the router's id k is installed under. It looks through
// byID: a map the other way would cost each session about 200 bytes per
// kind, for the rare subscribe and unsubscribe that ask.
func idOf[K comparable](byID map[uint64]K, k K) (uint64, bool) {
	for id, x := range byID {
		if x == k {
			return id, true
		}
	}
	return 0, false
}

// bound reports whether k is installed on s.
func bound[K comparable](s *Session, byID map[uint64]K, k K) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := idOf(byID, k)
	return ok
}

// bind maps the router's id to k.
func bind[K comparable](s *Session, byID map[uint64]K, id uint64, k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byID[id] = k
}

// unbind removes k's mapping and returns the router's id it had.
func unbind[K comparable](s *Session, byID map[uint64]K, k K) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := idOf(byID, k)
	if ok {
		delete(byID, id)
	}
	return id, ok
}
