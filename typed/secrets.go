// This file holds the secret columns of the typed tables: their values in
// rows, Reveal and Verify.

package typed

import (
	"context"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/secrets"
)

// DecodeSecret reads a secret column's value as rows carry it:
// secrets.Placeholder and null are secrets.Keep(), any other text (a
// plaintext from Reveal) secrets.Set of it — the rules of
// secrets.Value's UnmarshalJSON. name labels the value in the error.
func DecodeSecret(v any, name string) (secrets.Value, error) {
	if v == nil {
		return secrets.Keep(), nil
	}
	s, err := client.DecodeString(v, name)
	if err != nil {
		return secrets.Keep(), err
	}
	if s == secrets.Placeholder {
		return secrets.Keep(), nil
	}
	return secrets.Set(s), nil
}

// EncodeSecret returns what a row writes for a secret column: nothing
// (write false) for secrets.Keep(), which leaves the column out so that a
// table with an entity key keeps the stored secret; null for
// secrets.Clear(); the plaintext for secrets.Set.
func EncodeSecret(v secrets.Value) (value any, write bool) {
	if p, ok := v.Plaintext(); ok {
		return p, true
	}
	if v.IsClear() {
		return nil, true
	}
	return nil, false
}

// Reveal reads rows of the table with their secret columns in plaintext,
// newest first (secrets.Client.Reveal): Limit 1–100. flockgen generates a
// Reveal method for the tables that have secret columns.
func Reveal[R any](ctx context.Context, t Table[R], q *Query[R]) ([]R, error) {
	rows, err := secrets.New(t.c).Reveal(ctx, t.r.s.Table, q.Client())
	if err != nil {
		return nil, err
	}
	return t.r.decode("typed.Reveal", rows)
}

// Verify checks candidate against the secret column col of the rows q
// selects (by default the newest row), on the platform
// (secrets.Client.Verify); it fails closed.
func (t Table[R]) Verify(ctx context.Context, col SecretColumn[R], candidate string, q *Query[R]) (secrets.VerifyResult, error) {
	return secrets.New(t.c).Verify(ctx, t.r.s.Table, col.Name(), candidate, q.Client())
}
