// This file holds keyCache: the map keys a link has read, kept so that the
// same key read again costs no allocation.
//
// A device mostly receives the same few keys over and over: the columns of
// its rows and the details of EVENT, RESULT and INVOCATION. Each decoded
// map would otherwise allocate every key again.

package engine

// keyCacheSize is the number of keys a link keeps: about 12 KiB at most
// with keys of maxInternedKey bytes (a few detail texts may be longer).
const keyCacheSize = 256

// maxInternedKey is the longest key kept; longer ones are rarely repeated
// names.
const maxInternedKey = 32

// maxInternedText is the longest detail text kept (a caller's authid: on
// the platform, a device's serial, a UUID of 36 bytes).
const maxInternedText = 64

// keyCache keeps one key per slot, the slot chosen by a hash of the key's
// bytes; a key arriving in a slot replaces the one there. It belongs to the
// link's reader: the holder of the reader role uses it, which hands it on
// with the role. Its slots are made with the first key kept, so a session
// that reads no map after its join holds none.
type keyCache struct{ slots *[keyCacheSize]string }

// intern returns b as a string: the one kept for the same bytes, or a new
// one, then kept.
func (c *keyCache) intern(b []byte) string { return intern(c.get(), b) }

// get returns the slots, made on the first call.
//
//go:noinline
func (c *keyCache) get() []string {
	if c.slots == nil {
		c.slots = new([keyCacheSize]string)
	}
	return c.slots[:]
}

// textCache keeps the short strings a Reader has read, as keyCache keeps
// keys: a payload read into a struct mostly carries the same few texts
// (names, units, states) call after call.
type textCache [32]string

// intern returns b as a string: the one kept for the same bytes, or a new
// one, then kept.
func (c *textCache) intern(b []byte) string { return intern(c[:], b) }

// intern returns b as a string: the one kept in its slot of slots (chosen
// by a hash of b) for the same bytes, or a new one, then kept there.
func intern(slots []string, b []byte) string {
	h := uint32(2166136261) // FNV-1a
	for _, x := range b {
		h = (h ^ uint32(x)) * 16777619
	}
	slot := &slots[h%uint32(len(slots))]
	if *slot == string(b) { // compared without a conversion
		return *slot
	}
	s := string(b)
	*slot = s
	return s
}
