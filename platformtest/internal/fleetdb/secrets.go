// This file holds the secret procedures of the data backend (docs/wire.md
// §7.13), registered only for tables with at least one secret column:
//
//	secret.reveal.<t>  CALL, args [query]                      → [[row, …]]
//	secret.verify.<t>  CALL, args [query + column + candidate]  → [{"match": bool, "checked": n}]
//
// Checks, in order: the caller's role must be app, the app's own
// containers (any other role, app_reader included: wamp.error.not_authorized);
// the rate limit of the operation for the caller (ratelimit.go); the
// payload, validated like a history read (validate.go) except that limit
// may be left out (reveal 10, verify 1) and must be 1…100 (else
// sys.dataservice.error.invalid_limit, never clamped), and verify adds the
// strings column and candidate; verify's column must be a secret column of
// the table (sys.dataservice.error.not_a_secret_column). The rows are then
// selected as a history read selects them (history.go): time range,
// filters (one on a secret column is sys.dataservice.error.secret_column),
// the latest marker, newest first, offset and limit.
//
// Reveal answers the rows newest first, not reversed, not chunked, with
// every secret column decrypted; its projection is the requested columns
// plus every secret column (plus tsp, device_key and authid, as always).
// Verify compares the candidate with the column's value of each selected
// row in constant time (the SHA-256 digests of both compared with
// crypto/subtle, so neither where they differ nor their lengths show; it
// never stops at a match) and answers whether one matched and how many
// rows took part (checked). NULL passes through as NULL in reveal and never
// matches in verify.
//
// The candidate is never stored, logged or echoed: a verify payload whose
// shape is wrong where it may hold the candidate is refused with a typia
// object that describes the value instead of quoting it.
//
// Choices where the documents are silent: a missing limit takes the
// default (the SDKs always send one); verify on a column the table does not
// have is not_a_secret_column, like one that is not secret; a selected row
// whose value is NULL counts in checked.

package fleetdb

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"maps"
	"math"
	"strconv"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// secretPlaceholder is what every read and feed shows instead of a
// non-null value of a secret column (the seed's SECRET_PLACEHOLDER). Written
// to a secret column of an entity table it means "keep the stored value".
// The platform exports it as platformtest.SecretPlaceholder.
const secretPlaceholder = "__secret__"

// secretUIMask is the mask of eight bullets the platform's UI shows; written
// back it means "keep the stored value", like secretPlaceholder.
const secretUIMask = "••••••••"

// secretCipherPrefix starts an already-encrypted secret, which writes refuse.
const secretCipherPrefix = "ifsec:1:"

// outValue types a stored value for a read or a feed (store.OutValue),
// secrets masked.
func outValue(typ template.DataType, secret bool, v any) any {
	if secret && v != nil {
		return secretPlaceholder
	}
	return store.OutValue(typ, v)
}

// Limits of the secret procedures.
const (
	maxSecretLimit     = 100
	defaultRevealLimit = 10
	defaultVerifyLimit = 1
)

// The operations of the rate limits.
const (
	opReveal = "secret.reveal"
	opVerify = "secret.verify"
)

// Type texts of the secret procedures' validators.
const (
	tRevealQuery = "RevealQuery"
	tVerifyQuery = "VerifyQuery"
	tSecretLimit = `((number & Type<"uint32"> & Minimum<1> & Maximum<100>) | undefined)`
)

// withheld describes, in a typia object, a value that may hold a
// candidate and is therefore not quoted.
const withheld = "The value at this path is not quoted: it may hold the candidate."

// secretCols returns the indexes of the secret columns of t.
func (t *table) secretCols() []int {
	var cols []int
	for i := range t.cols {
		if t.cols[i].secret {
			cols = append(cols, i)
		}
	}
	return cols
}

// serveSecrets registers secret.reveal.<t> and secret.verify.<t> of a
// table with a secret column.
func (b *backend) serveSecrets(h *realm.Host, t *table) error {
	return errors.Join(
		h.Register(wire.RevealProc(t.name), func(ctx context.Context, inv *wamp.Invocation) client.InvokeResult {
			return b.serveReveal(ctx, h, t, inv)
		}, nil),
		h.Register(wire.VerifyProc(t.name), func(ctx context.Context, inv *wamp.Invocation) client.InvokeResult {
			return b.serveVerify(ctx, h, t, inv)
		}, nil),
	)
}

func (b *backend) serveReveal(ctx context.Context, h *realm.Host, t *table, inv *wamp.Invocation) client.InvokeResult {
	if err := b.admitSecretCall(h, inv, opReveal, revealPerWindow); err != nil {
		return err.result()
	}
	q, err := validateSecretQuery(wirevalue.CloneList(inv.Arguments), false)
	if err != nil {
		return err.result()
	}
	rows, err := b.reveal(ctx, t, q)
	if err != nil {
		logStoreFailure(h, "reveal", t.name, err)
		return err.result()
	}
	list := make(wamp.List, len(rows))
	for i, r := range rows {
		list[i] = r
	}
	return client.InvokeResult{Args: wamp.List{list}}
}

// reveal runs a validated reveal and returns its rows newest first, with
// the secret columns in plaintext.
func (b *backend) reveal(ctx context.Context, t *table, q *readQuery) ([]map[string]any, *fleetError) {
	sel, err := b.read(ctx, t, q, t.secretCols()...)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(sel.rows))
	for n, r := range sel.rows {
		m := make(map[string]any, len(sel.cols))
		for _, i := range sel.cols {
			c := &t.cols[i]
			v := r[i]
			if c.secret {
				var derr error
				if v, derr = t.seal.plainValue(v); derr != nil {
					return nil, runtimeEmpty()
				}
			}
			m[c.id] = outValue(c.typ, false, v)
		}
		out[n] = sel.prune(t, m)
	}
	return out, nil
}

func (b *backend) serveVerify(ctx context.Context, h *realm.Host, t *table, inv *wamp.Invocation) client.InvokeResult {
	if err := b.admitSecretCall(h, inv, opVerify, verifyPerWindow); err != nil {
		return err.result()
	}
	args := wirevalue.CloneList(inv.Arguments)
	q, err := validateSecretQuery(args, true)
	if err != nil {
		return err.result()
	}
	column, candidate, err := verifyFields(args[0].(map[string]any))
	if err != nil {
		return err.result()
	}
	match, checked, err := b.verify(ctx, t, q, column, candidate)
	if err != nil {
		logStoreFailure(h, "verify", t.name, err)
		return err.result()
	}
	return client.InvokeResult{Args: wamp.List{map[string]any{"match": match, "checked": int64(checked)}}}
}

// verify compares candidate with column of the rows a validated query
// selects, in constant time, and returns whether one matched and how many
// took part.
func (b *backend) verify(ctx context.Context, t *table, q *readQuery, column, candidate string) (match bool, checked int, err *fleetError) {
	i, ok := t.byID[column]
	if !ok || !t.cols[i].secret {
		return false, 0, dataRefusal(wire.ErrNotASecretColumn, "column %q of table %q is not a secret column", column, t.name)
	}
	sel, err := b.read(ctx, t, q, i)
	if err != nil {
		return false, 0, err
	}
	want := sha256.Sum256([]byte(candidate))
	found := 0
	for _, r := range sel.rows {
		plain, derr := t.seal.plainValue(r[i])
		if derr != nil {
			return false, 0, runtimeEmpty()
		}
		s, notNull := plain.(string)
		got := sha256.Sum256([]byte(s))
		eq := subtle.ConstantTimeCompare(got[:], want[:])
		found |= subtle.ConstantTimeSelect(boolInt(notNull), eq, 0)
	}
	return found == 1, len(sel.rows), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// admitSecretCall checks the caller's role and counts the call against
// the caller's rate limit.
func (b *backend) admitSecretCall(h *realm.Host, inv *wamp.Invocation, op string, limit int) *fleetError {
	role, _ := inv.Details["caller_authrole"].(string)
	if role != wire.RoleApp {
		return &fleetError{uri: wire.ErrNotAuthorized, args: []any{
			op + " is for the app's own containers (role " + wire.RoleApp + "), not for role " + strconv.Quote(role)}}
	}
	caller, _ := inv.Details["caller_authid"].(string)
	if ok, wait := b.limits.take(op, caller, limit, h.Clock.Now()); !ok {
		return dataRefusal(wire.ErrRateLimited, "%s: at most %d calls per %v for each caller; the window ends in %d s",
			op, limit, rateWindow, int64(math.Ceil(wait.Seconds())))
	}
	return nil
}

// validateSecretQuery validates the query of a reveal or verify: a history
// query whose limit is optional (reveal 10, verify 1) and 1…100.
func validateSecretQuery(args []any, verify bool) (*readQuery, *fleetError) {
	in, undef := arg0(args)
	m, ok := in.(map[string]any)
	switch {
	case !ok && verify:
		return nil, typiaWithheld("$input[0]", tVerifyQuery, undef)
	case !ok:
		return nil, typiaError("$input[0]", tRevealQuery, in, undef)
	}
	const p = "$input[0]."
	m = maps.Clone(m)
	lim, has := m["limit"]
	switch {
	case !has:
		m["limit"] = int64(defaultRevealLimit)
		if verify {
			m["limit"] = int64(defaultVerifyLimit)
		}
	case !isUint32(lim):
		return nil, typiaError(p+"limit", tSecretLimit, lim, false)
	case store.NumberOf(lim) < 1 || store.NumberOf(lim) > maxSecretLimit:
		return nil, dataRefusal(errInvalidLimit, "limit %s: secrets are read 1 to %d rows at a time", store.JSONText(lim), maxSecretLimit)
	}
	return validateHistory([]any{m})
}

// verifyFields returns the column and the candidate of a verify payload.
func verifyFields(m map[string]any) (column, candidate string, err *fleetError) {
	const p = "$input[0]."
	col, has := m["column"]
	column, ok := col.(string)
	if !ok {
		return "", "", typiaError(p+"column", tString, col, !has)
	}
	cand, has := m["candidate"]
	if candidate, ok = cand.(string); !ok {
		return "", "", typiaWithheld(p+"candidate", tString, !has)
	}
	return column, candidate, nil
}

// typiaWithheld is a failed typia.assert whose value is described, never
// quoted.
func typiaWithheld(path, expected string, undefined bool) *fleetError {
	obj := map[string]any{"method": "typia.assert", "path": path, "expected": expected, "description": withheld}
	if undefined {
		obj["description"] = typiaUndefined
	}
	return &fleetError{uri: wire.ErrRuntimeError, args: []any{obj}}
}
