package workpool

import "sync"

// Queue runs functions on a fixed number of goroutines, queueing up to a
// bound of them while all are busy. Where a Pool starts a goroutine for
// each function no waiting worker takes, a Queue keeps the goroutines
// that run functions few when work piles up: during a garbage
// collection's mark every goroutine that allocates must first help mark,
// so a stall that starts thousands of workers makes itself longer. A
// function that does not fit (TryGo false) is the caller's to run
// elsewhere, so a Queue never blocks its caller.
type Queue struct {
	workers int
	jobs    chan func()
	quit    chan struct{}
	start   sync.Once
	wg      sync.WaitGroup

	mu     sync.RWMutex // held shared by TryGo, exclusively by Close
	closed bool
}

// NewQueue returns a Queue of workers goroutines, started with its first
// function, and room for queued functions waiting for them.
func NewQueue(workers, queued int) *Queue {
	return &Queue{workers: max(workers, 1), jobs: make(chan func(), max(queued, 0)), quit: make(chan struct{})}
}

// TryGo queues f for a worker; false, with f not run, when the queue is
// full or closed.
func (q *Queue) TryGo(f func()) bool {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return false
	}
	q.start.Do(q.startWorkers)
	select {
	case q.jobs <- f:
		return true
	default:
		return false
	}
}

func (q *Queue) startWorkers() {
	q.wg.Add(q.workers)
	for range q.workers {
		go q.worker()
	}
}

// worker runs queued functions until Close, then the ones still queued.
func (q *Queue) worker() {
	defer q.wg.Done()
	for {
		select {
		case f := <-q.jobs:
			f()
		case <-q.quit:
			for {
				select {
				case f := <-q.jobs:
					f()
				default:
					return
				}
			}
		}
	}
}

// Close makes later TryGo calls fail, lets the workers run what is
// queued, and waits for them to end.
func (q *Queue) Close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	close(q.quit)
	q.mu.Unlock()
	q.wg.Wait()
}
