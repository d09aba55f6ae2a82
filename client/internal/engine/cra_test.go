package engine

import (
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
)

// TestCRASignature signs plain and salted challenges as nexus's crsign
// does (the reference), and refuses derivations a device cannot afford.
func TestCRASignature(t *testing.T) {
	const challenge = `{"nonce":"n1","authid":"dev"}`
	for _, extra := range []map[string]any{
		{"challenge": challenge},
		{"challenge": challenge, "salt": "pepper"},
		{"challenge": challenge, "salt": "pepper", "iterations": int64(100), "keylen": int64(16)},
		{"challenge": challenge, "salt": "pepper", "iterations": int64(0), "keylen": int64(0)},
		{"challenge": ""},
	} {
		got, err := craSignature("s3cret", extra)
		if err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
		if want := crsign.RespondChallenge("s3cret", &wamp.Challenge{AuthMethod: "wampcra", Extra: extra}, nil); got != want {
			t.Errorf("%v: signature %q, want %q", extra, got, want)
		}
	}
	for _, extra := range []map[string]any{
		{"challenge": challenge, "salt": "pepper", "iterations": int64(1 << 30)},
		{"challenge": challenge, "salt": "pepper", "keylen": int64(-1)},
	} {
		if _, err := craSignature("s3cret", extra); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%v: err = %v, want a refusal", extra, err)
		}
	}
}
