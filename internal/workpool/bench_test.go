package workpool

import (
	"sync"
	"testing"
	"time"
)

// deep uses about 16 KiB of stack, as a call through the platform's
// services does, so that a new goroutine grows its stack three times.
//
//go:noinline
func deep(n int) byte {
	var frame [1 << 10]byte
	frame[n%len(frame)] = byte(n)
	if n == 0 {
		return frame[0]
	}
	return deep(n-1) + frame[n%len(frame)]
}

var sinkByte byte

// BenchmarkDeepCall runs a function that needs 16 KiB of stack on a
// goroutine of its own, each call (the baseline: what a server that
// starts a goroutine per request pays) and through a Pool.
func BenchmarkDeepCall(b *testing.B) {
	b.Run("goroutine", func(b *testing.B) {
		b.ReportAllocs()
		var wg sync.WaitGroup
		for b.Loop() {
			wg.Add(1)
			go func() { defer wg.Done(); sinkByte = deep(16) }()
			wg.Wait()
		}
	})
	b.Run("pool", func(b *testing.B) {
		b.ReportAllocs()
		p := New(time.Minute)
		defer p.Close()
		for b.Loop() {
			p.Do(func() { sinkByte = deep(16) })
		}
	})
}
