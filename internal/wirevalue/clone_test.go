package wirevalue

import (
	"math"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
)

func TestCloneSharesNothing(t *testing.T) {
	inner := []byte{1, 2}
	in := map[string]any{
		"list":  wamp.List{uint8(1), map[any]any{"k": inner, 3: "three"}},
		"dict":  wamp.Dict{"n": int32(-4)},
		"big":   uint64(math.MaxUint64),
		"bytes": inner,
	}
	got := CloneDict(in)
	want := map[string]any{
		"list":  []any{int64(1), map[string]any{"k": []byte{1, 2}, "3": "three"}},
		"dict":  map[string]any{"n": int64(-4)},
		"big":   uint64(math.MaxUint64),
		"bytes": []byte{1, 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("CloneDict (-want +got):\n%s", diff)
	}
	// Mutating the original must not reach the copy.
	inner[0] = 9
	in["dict"].(wamp.Dict)["n"] = "changed"
	in["list"].(wamp.List)[0] = "changed"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("copy changed with the original (-want +got):\n%s", diff)
	}
	if CloneList(nil) != nil || CloneDict(nil) != nil {
		t.Fatal("nil containers must stay nil")
	}
}

func TestSize(t *testing.T) {
	small := Size(map[string]any{"a": 1})
	big := Size(map[string]any{"a": 1, "blob": make([]byte, 1000), "list": []any{"xyz", nil, 2.5}})
	if small <= 0 || big < 1000 || big > 1100 {
		t.Fatalf("Size: small %d, big %d", small, big)
	}
	if Size(wamp.List{"abc"}) != Size([]any{"abc"}) || Size(wamp.Dict{"k": "v"}) != Size(map[string]any{"k": "v"}) {
		t.Fatal("nexus containers must size like plain ones")
	}
}
