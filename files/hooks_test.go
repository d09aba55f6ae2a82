// This file tests the store's transfer hook.

package files_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/flockgo/ironflock/files"
)

type transfers struct {
	mu  sync.Mutex
	got []files.Transfer
}

func (r *transfers) OnTransfer(_ context.Context, t files.Transfer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, t)
}

func TestTransferHook(t *testing.T) {
	e := setup(t)
	rec := &transfers{}
	st := files.New(e.c, files.WithHooks(rec, 42)) // 42: not a hook, ignored
	data := pattern(1000)
	if _, err := st.Put(ctx(t), "a.bin", data); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx(t), "a.bin")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
	if _, err := st.Get(ctx(t), "missing.bin"); err == nil {
		t.Fatal("Get of a missing object succeeded")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.got) != 3 {
		t.Fatalf("told %d transfers, want 3: %+v", len(rec.got), rec.got)
	}
	put, get, miss := rec.got[0], rec.got[1], rec.got[2]
	if put.Op != "put" || put.Bytes != 1000 || put.Namespace != files.DefaultNamespace || put.Err != nil || put.Latency <= 0 {
		t.Errorf("put told as %+v", put)
	}
	if get.Op != "get" || get.Bytes != 1000 || get.Err != nil {
		t.Errorf("get told as %+v", get)
	}
	if miss.Op != "get" || miss.Err == nil || miss.Bytes != 0 {
		t.Errorf("failed get told as %+v", miss)
	}
}
