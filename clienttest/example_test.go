package clienttest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// exampleT stands in for the *testing.T of a real test, so that the
// example runs: it keeps the cleanups and runs them at the end.
type exampleT struct {
	testing.TB // only the methods below are used
	cleanups   []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (t *exampleT) end() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// A test gets a started client for an installation in one line; the
// client stops when the test ends.
func Example() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.end()

	p := platformtest.New(t)
	inst := p.Install(p.AddDevice("sensor-1"), p.AddApp("my-app", ""), platformtest.Dev)
	c := clienttest.Start(t, inst)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Publish(ctx, "com.example.readings", map[string]any{"celsius": 21.5}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	got := p.Publications()[0]
	fmt.Println(got.URI, got.Args[0], got.AuthID == inst.Device().Serial())
	// Output:
	// com.example.readings map[celsius:21.5] true
}
