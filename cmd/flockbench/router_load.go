// This file holds the loads of the router benchmark: fan-out (subscribers
// counting EVENTs of a paced publisher), routed calls (callers with one
// call each in flight to an echoing callee) and joins (join and leave in
// a loop), and the measured interval: the router's CPU time and the
// operations counted between two snapshots after a warm-up.

package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
)

// tailStall ends the wait for the events of the last publications after
// a fan-out interval on a router that drops events (bare nexus): once none
// has arrived for that long, those missing are lost (a router that falls
// behind delivers its backlog first). flockd drops none without dropping
// the link, so its events are waited for far longer (flockdTailStall),
// beyond any stall a loaded machine causes: what it misses then is lost.
const (
	tailStall       = time.Second
	flockdTailStall = 30 * time.Second
)

// load is the peers and goroutines of one scenario run: the first error
// of a goroutine ends the run.
type load struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	peers  []*peer
	failed chan error // the first error, once
}

func newLoad(ctx context.Context) *load {
	l := &load{failed: make(chan error, 1)}
	l.ctx, l.cancel = context.WithCancel(ctx)
	return l
}

// add keeps p, to be closed at the end.
func (l *load) add(p *peer) {
	l.mu.Lock()
	l.peers = append(l.peers, p)
	l.mu.Unlock()
}

// run runs fn in a goroutine; its error fails the run.
func (l *load) run(fn func() error) {
	l.wg.Go(func() { l.fail(fn()) })
}

// fail ends the run with err, unless err is nil or the run is over.
func (l *load) fail(err error) {
	if err == nil || l.ctx.Err() != nil {
		return
	}
	select {
	case l.failed <- err:
	default:
	}
	l.cancel()
}

// close ends the run: every peer is closed and every goroutine waited for.
func (l *load) close() {
	l.cancel()
	l.mu.Lock()
	for _, p := range l.peers {
		p.close()
	}
	l.mu.Unlock()
	l.wg.Wait()
}

// wait waits d, or returns the run's first error or ctx's.
func (l *load) wait(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case err := <-l.failed:
		return err
	case <-l.ctx.Done():
		select {
		case err := <-l.failed:
			return err
		default:
			return l.ctx.Err()
		}
	}
}

// dial joins n peers with cred, 16 at a time, runs setup on each, and
// keeps them.
func (l *load) dial(cred credential, n int, setup func(*peer) error) ([]*peer, error) {
	peers := make([]*peer, n)
	next := atomic.Int64{}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for range min(n, 16) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || l.ctx.Err() != nil {
					return
				}
				p, err := dialPeer(l.ctx, cred)
				if err == nil {
					l.add(p)
					if setup != nil {
						err = setup(p)
					}
				}
				peers[i], errs[i] = p, err
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return peers, l.ctx.Err()
}

// measure lets the load warm up and measures an interval of d: the
// router's CPU time, ops' growth and, at the end, its memory.
func (l *load) measure(t *routerTarget, ops *atomic.Int64, warmup, d time.Duration) (routerSample, error) {
	if err := l.wait(warmup); err != nil {
		return routerSample{}, err
	}
	cpu0, err := childCPU(t.pid)
	if err != nil {
		return routerSample{}, err
	}
	n0, t0 := ops.Load(), time.Now()
	if err := l.wait(d); err != nil {
		return routerSample{}, err
	}
	cpu1, err := childCPU(t.pid)
	if err != nil {
		return routerSample{}, err
	}
	n1, t1 := ops.Load(), time.Now()
	rss, peak, err := childMemory(t.pid)
	if err != nil {
		return routerSample{}, err
	}
	if n1 == n0 {
		return routerSample{}, errors.New("no operation completed in the interval")
	}
	return routerSample{Ops: n1 - n0, Wall: t1.Sub(t0), CPU: cpu1 - cpu0, RSS: rss, Peak: peak}, nil
}

// runFanOut measures fan-out: sc.Subscribers sessions subscribed to the
// bench topic count the EVENTs of one publisher publishing sc.Rate
// acknowledged publications per second; an operation is a delivered
// EVENT.
func runFanOut(ctx context.Context, t *routerTarget, sc routerScenario, warmup, d time.Duration) (routerSample, error) {
	l := newLoad(ctx)
	defer l.close()
	var delivered atomic.Int64
	subs, err := l.dial(t.caller, sc.Subscribers, func(p *peer) error {
		_, err := p.request(&wamp.Subscribe{Request: 1, Options: wamp.Dict{}, Topic: benchTopic}, wamp.SUBSCRIBED)
		return err
	})
	if err != nil {
		return routerSample{}, fmt.Errorf("subscribers: %w", err)
	}
	for _, p := range subs {
		l.run(func() error {
			for {
				code, _, _, err := p.read()
				if err != nil {
					return err
				}
				if code == wampEvent {
					delivered.Add(1)
				}
			}
		})
	}
	pubs, err := l.dial(t.caller, 1, nil)
	if err != nil {
		return routerSample{}, fmt.Errorf("publisher: %w", err)
	}
	pub := pubs[0]
	tpl, err := preencode(&wamp.Publish{Options: wamp.Dict{wamp.OptAcknowledge: true}, Topic: benchTopic,
		Arguments: wamp.List{row()}, ArgumentsKw: t.kwargs})
	if err != nil {
		return routerSample{}, err
	}
	var written, acked atomic.Int64
	l.run(func() error { // the acknowledgements
		for {
			code, id, _, err := pub.read()
			if err != nil {
				return err
			}
			if code != wampPublished {
				return fmt.Errorf("publication %d answered with message type %d", id, code)
			}
			acked.Add(1)
		}
	})
	pctx, stopPub := context.WithCancel(l.ctx)
	defer stopPub()
	var paced sync.WaitGroup
	paced.Go(func() {
		if err := pace(pctx, sc.Rate, func() error { return pub.write(tpl.with(uint64(written.Add(1)))) }); err != nil && pctx.Err() == nil {
			l.fail(fmt.Errorf("publish: %w", err))
		}
	})
	s, err := l.measure(t, &delivered, warmup, d)
	stopPub()
	paced.Wait()
	if err != nil {
		return s, err
	}
	// The events of the publications written so far: wait for them (the
	// last ones are still on their way) while they keep coming.
	want := written.Load() * int64(sc.Subscribers)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	last, lastAt := delivered.Load(), time.Now()
	stall := tailStall
	if t.Name == routerFlockd {
		stall = flockdTailStall
	}
	for n := last; n < want && time.Since(lastAt) < stall; n = delivered.Load() {
		if n != last {
			last, lastAt = n, time.Now()
		}
		select {
		case <-tick.C:
		case err := <-l.failed:
			return s, err
		case <-l.ctx.Done():
			return s, l.ctx.Err()
		}
	}
	s.Lost = max(0, want-delivered.Load())
	return s, nil
}

// pace calls publish rate times a second until ctx ends, catching up in
// bursts of at most a tenth of a second's worth after a delay.
func pace(ctx context.Context, rate int, publish func() error) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	var sent int64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		due := int64(time.Since(start).Seconds() * float64(rate))
		sent = max(sent, due-int64(rate/10+1))
		for ; sent < due; sent++ {
			if err := publish(); err != nil {
				return err
			}
		}
	}
}

// runRoutedCalls measures routed calls: sc.Callers sessions, each with one
// call in flight, call a procedure an echoing callee registered; an
// operation is a completed call.
func runRoutedCalls(ctx context.Context, t *routerTarget, sc routerScenario, warmup, d time.Duration) (routerSample, error) {
	l := newLoad(ctx)
	defer l.close()
	yield, err := preencode(&wamp.Yield{Options: wamp.Dict{}, Arguments: wamp.List{row()}})
	if err != nil {
		return routerSample{}, err
	}
	callees, err := l.dial(t.callee, 1, func(p *peer) error {
		_, err := p.request(&wamp.Register{Request: 1, Options: wamp.Dict{}, Procedure: wamp.URI(t.procedure)}, wamp.REGISTERED)
		return err
	})
	if err != nil {
		return routerSample{}, fmt.Errorf("callee: %w", err)
	}
	callee := callees[0]
	l.run(func() error {
		for {
			code, id, _, err := callee.read()
			if err != nil {
				return err
			}
			if code == wampInvocation {
				if err := callee.write(yield.with(id)); err != nil {
					return err
				}
			}
		}
	})
	callers, err := l.dial(t.caller, sc.Callers, nil)
	if err != nil {
		return routerSample{}, fmt.Errorf("callers: %w", err)
	}
	var calls atomic.Int64
	for _, p := range callers {
		tpl, err := preencode(&wamp.Call{Options: wamp.Dict{}, Procedure: wamp.URI(t.procedure), Arguments: wamp.List{row()}})
		if err != nil {
			return routerSample{}, err
		}
		l.run(func() error {
			for id := uint64(1); l.ctx.Err() == nil; id++ {
				if err := p.write(tpl.with(id)); err != nil {
					return err
				}
				for {
					code, rid, _, err := p.read()
					if err != nil {
						return err
					}
					if rid != id {
						continue
					}
					if code != wampResult {
						return fmt.Errorf("call %d answered with message type %d", id, code)
					}
					break
				}
				calls.Add(1)
			}
			return nil
		})
	}
	return l.measure(t, &calls, warmup, d)
}

// runJoins measures joins: sc.Joiners goroutines each join (WebSocket
// upgrade, HELLO, authentication, WELCOME) and leave (GOODBYE, answered)
// in a loop; an operation is one join and leave.
func runJoins(ctx context.Context, t *routerTarget, sc routerScenario, warmup, d time.Duration) (routerSample, error) {
	l := newLoad(ctx)
	defer l.close()
	var joins atomic.Int64
	for range sc.Joiners {
		l.run(func() error {
			for l.ctx.Err() == nil {
				p, err := dialPeer(l.ctx, t.caller)
				if err != nil {
					return err
				}
				err = p.leave()
				p.close()
				if err != nil {
					return err
				}
				joins.Add(1)
			}
			return nil
		})
	}
	return l.measure(t, &joins, warmup, d)
}
