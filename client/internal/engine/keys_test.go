package engine

import (
	"fmt"
	"testing"
	"unsafe"
)

// TestKeyCache checks that a key read again is the string kept, that keys
// sharing a slot replace each other without ever returning the other's
// text, and that a kept key does not change with the buffer it was read
// from.
func TestKeyCache(t *testing.T) {
	var c keyCache
	buf := []byte("temperature")
	first := c.intern(buf)
	again := c.intern([]byte("temperature"))
	if first != "temperature" || unsafe.StringData(first) != unsafe.StringData(again) {
		t.Fatalf("the same key twice: %q at %p, then %q at %p", first, unsafe.StringData(first), again, unsafe.StringData(again))
	}
	copy(buf, "xxxxxxxxxxx")
	if first != "temperature" {
		t.Fatalf("a kept key changed with the buffer it was read from: %q", first)
	}
	// More keys than slots: every one comes back as its own text.
	for round := range 2 {
		for i := range 3 * keyCacheSize {
			want := fmt.Sprintf("key-%d", i)
			if got := c.intern([]byte(want)); got != want {
				t.Fatalf("round %d: intern(%q) = %q", round, want, got)
			}
		}
	}
	if got := c.intern(nil); got != "" {
		t.Fatalf("the empty key: %q", got)
	}
}

// TestParsedKeysShared checks that the maps of two messages read through a
// link's key cache share their keys.
func TestParsedKeysShared(t *testing.T) {
	// [RESULT, 1, {}, [{"humidity": 40}]] twice.
	raw := []byte{0x94, 50, 1, 0x80, 0x91, 0x81, 0xa8, 'h', 'u', 'm', 'i', 'd', 'i', 't', 'y', 40}
	var c keyCache
	key := func() string {
		t.Helper()
		m, ok := parseMessage(raw, &c)
		if !ok {
			t.Fatal("not read")
		}
		for k := range m.(*resultMsg).Args[0].(map[string]any) {
			return k
		}
		t.Fatal("no key")
		return ""
	}
	a, b := key(), key()
	if a != "humidity" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Fatalf("keys %q and %q are not one string", a, b)
	}
}
