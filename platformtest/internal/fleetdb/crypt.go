// This file holds the encryption at rest of secret columns (the seed's
// "Secret column read forms"): AES-256-GCM from the standard library under
// one key per DB, which is per platform, made when the platform starts,
// and a fresh random nonce per stored value, so two rows with the same
// secret store different ciphertext. A value is stored in the production
// text form ifsec:1:<standard base64 of nonce ‖ ciphertext ‖ tag>, which
// is what direct SQL access shows (TableRows) and what writes refuse
// (secret_ciphertext_rejected, write.go). It serves no URI.
//
// Choices where the documents are silent: no additional authenticated
// data (a kept secret is carried to the entity's next row as it is
// stored); the key lives in memory, so it dies with the platform, like
// the rows of the memory store; a store whose rows outlive the platform
// keeps the key with them (KeyStore), and the platform passes it in
// Config.SecretKey.

package fleetdb

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
)

// sealer encrypts and decrypts the values of secret columns.
type sealer struct{ aead cipher.AEAD }

// NewSecretKey returns a fresh random key for secret columns (256 bits).
func NewSecretKey() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return key
}

// newSealer makes a sealer with key, or with a fresh random key when key
// is not 32 bytes long.
func newSealer(key []byte) *sealer {
	if len(key) != 32 {
		key = NewSecretKey()
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("fleetdb: " + err.Error()) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("fleetdb: " + err.Error())
	}
	return &sealer{aead: aead}
}

// seal encrypts a plaintext under a fresh random nonce and returns its
// stored form, ifsec:1:<base64>.
func (s *sealer) seal(plain string) string {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	_, _ = rand.Read(nonce)
	sealed := s.aead.Seal(nonce, nonce, []byte(plain), nil)
	return secretCipherPrefix + base64.StdEncoding.EncodeToString(sealed)
}

// errNotSealed reports a stored value that is not ciphertext of this DB.
var errNotSealed = errors.New("fleetdb: a stored secret is not ciphertext of this platform")

// open decrypts a stored value made by seal.
func (s *sealer) open(stored string) (string, error) {
	text, ok := strings.CutPrefix(stored, secretCipherPrefix)
	if !ok {
		return "", errNotSealed
	}
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return "", errNotSealed
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return "", errNotSealed
	}
	return string(plain), nil
}

// plainValue returns a stored value of a secret column in plaintext; NULL
// stays NULL.
func (s *sealer) plainValue(v any) (any, error) {
	stored, ok := v.(string)
	if !ok {
		return v, nil // NULL
	}
	return s.open(stored)
}

// KeyStore is implemented by a store whose rows outlive the platform (the
// data folder's, PostgreSQL): it keeps the key of secret columns with
// them, so that the next platform on the same storage decrypts what the
// last one encrypted.
type KeyStore interface {
	// SecretKey returns the stored key, or stores fresh and returns it
	// when there is none yet.
	SecretKey(ctx context.Context, fresh []byte) ([]byte, error)
}
