// This file holds the answer to a WAMP-CRA challenge.

package engine

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// WAMP-CRA's defaults for a salted secret.
const (
	craIterations = 1000
	craKeyLen     = 32
)

// craSignature signs the challenge of a WAMP-CRA CHALLENGE's extra: the
// base64 of HMAC-SHA256 of the challenge string keyed by the secret or,
// when the extra carries a salt, by the base64 of the secret's PBKDF2
// (HMAC-SHA256) derivation with the extra's iterations and keylen.
func craSignature(secret string, extra map[string]any) (string, error) {
	challenge, _ := extra["challenge"].(string)
	key := []byte(secret)
	if salt, _ := extra["salt"].(string); salt != "" {
		iterations, keyLen := int64(craIterations), int64(craKeyLen)
		if n, ok := extra["iterations"].(int64); ok && n != 0 {
			iterations = n
		}
		if n, ok := extra["keylen"].(int64); ok && n != 0 {
			keyLen = n
		}
		// Bounds a device can afford; a router asking for more is refused.
		if iterations < 1 || iterations > 1<<24 || keyLen < 1 || keyLen > 1024 {
			return "", fmt.Errorf("WAMP-CRA: iterations %d or keylen %d out of range", iterations, keyLen)
		}
		dk, err := pbkdf2.Key(sha256.New, secret, []byte(salt), int(iterations), int(keyLen))
		if err != nil {
			return "", fmt.Errorf("WAMP-CRA: %w", err)
		}
		key = base64.StdEncoding.AppendEncode(nil, dk)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(challenge))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
