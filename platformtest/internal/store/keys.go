// This file holds the keys seam: the keys the platform makes once and
// must find again as long as what they protect is kept (the key that
// seals secret columns, kept with the rows; the key that signs presigned
// URLs, kept with the objects). Every backend keeps them one way: a key
// by name, made at random the first time.

package store

import (
	"context"
	"crypto/rand"
)

// Keys keeps named keys. It is safe for concurrent use.
type Keys interface {
	// Key returns the key named name (KeySize bytes), making it at random
	// and keeping it the first time, so that every later call, after a
	// restart too for a kept store, returns the same bytes. A kept key
	// of another size is a damaged store.
	Key(ctx context.Context, name string) ([]byte, error)
}

// The names of the platform's keys.
const (
	// SecretColumnsKey seals the values of secret columns (AES-256-GCM).
	SecretColumnsKey = "secret-columns"
	// PresignKey signs presigned URLs (HMAC-SHA256).
	PresignKey = "presign"
)

// KeySize is the size of every key: 256 bits.
const KeySize = 32

// NewKey returns a fresh random key of KeySize bytes.
func NewKey() []byte {
	key := make([]byte, KeySize)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return key
}
