// Package workpool runs short functions on goroutines that outlive them.
// A goroutine starts with a small stack and grows it, by copying, as its
// calls go deeper; a server that starts a goroutine per request pays that
// copy for every request whose calls go deep (an append into a table
// through the platform's services: about a tenth of flockd's CPU in a
// burst of appends). A Pool keeps the goroutines it started, their stacks
// grown, for the next function, while work keeps coming: a worker waits
// Idle for the next one, then ends. It queues nothing: a function runs at
// once, on a waiting worker or on a new one, so a Pool never delays work
// nor bounds how much runs at a time.
package workpool

import (
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs functions on kept goroutines. Make one with New; Close ends
// its workers.
type Pool struct {
	idle time.Duration
	work chan *job // unbuffered: a send succeeds only into a waiting worker
	quit chan struct{}

	mu      sync.Mutex // orders starting workers with Close
	closed  bool
	wg      sync.WaitGroup
	started atomic.Int64 // workers started, for the tests
	running atomic.Int64 // workers alive
}

// job is one function to run, with the channel Do waits on.
type job struct {
	f    func()
	done chan struct{} // nil for Go
}

// jobs keeps Do's jobs, their channels made once.
var jobs = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}

// New returns a Pool whose workers wait idle for the next function before
// they end.
func New(idle time.Duration) *Pool {
	return &Pool{idle: idle, work: make(chan *job), quit: make(chan struct{})}
}

// Go runs f on a worker of the pool and returns at once; after Close, on a
// goroutine of its own.
func (p *Pool) Go(f func()) {
	j := &job{f: f}
	select {
	case p.work <- j:
	default:
		if !p.start(j) {
			go f()
		}
	}
}

// Do runs f on a worker of the pool and returns when f has returned; after
// Close, on the caller's goroutine.
func (p *Pool) Do(f func()) {
	j := jobs.Get().(*job)
	j.f = f
	select {
	case p.work <- j:
	default:
		if !p.start(j) {
			j.f = nil
			jobs.Put(j)
			f()
			return
		}
	}
	<-j.done
	j.f = nil
	jobs.Put(j)
}

// start starts a worker with j as its first job; false once the pool is
// closed.
func (p *Pool) start(j *job) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Add(1)
	p.started.Add(1)
	p.running.Add(1)
	go p.worker(j)
	return true
}

// worker runs j, then the jobs it is handed, until it waited Idle for one
// or the pool closes.
func (p *Pool) worker(j *job) {
	defer p.wg.Done()
	defer p.running.Add(-1)
	t := time.NewTimer(p.idle)
	defer t.Stop()
	for {
		j.run()
		t.Reset(p.idle)
		select {
		case j = <-p.work:
		case <-t.C:
			return
		case <-p.quit:
			return
		}
	}
}

// run runs the job's function and tells Do it returned.
func (j *job) run() {
	f, done := j.f, j.done
	f()
	if done != nil {
		done <- struct{}{}
	}
}

// Close ends the pool's workers once their functions have returned and
// waits for them; later functions run on goroutines of their own (Go) or
// on the caller's (Do).
func (p *Pool) Close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.quit)
	}
	p.mu.Unlock()
	p.wg.Wait()
}
