// This file holds Client, Reveal (secret.reveal.<t>) and Verify
// (secret.verify.<t>), with the fail-closed reading of verify answers.

package secrets

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// Limits of the secret procedures. The data backend enforces MaxLimit;
// the SDK sends the limit it is given.
const (
	// DefaultRevealLimit is the number of rows Reveal asks for when the
	// query sets no limit.
	DefaultRevealLimit = 10
	// DefaultVerifyLimit is the number of rows Verify checks when the
	// query sets no limit: the most recent matching row.
	DefaultVerifyLimit = 1
	// MaxLimit is the largest limit the data backend accepts.
	MaxLimit = 100
)

// Client reveals and verifies the secret columns of the tables of the
// app that c belongs to. It is safe for concurrent use.
type Client struct{ c *client.Client }

// New returns a Client working through c, which may be started later:
// calls wait for its session as table operations do.
func New(c *client.Client) *Client { return &Client{c: c} }

// VerifyResult is the answer of Verify.
type VerifyResult struct {
	// Match is true when the candidate equals the secret of one of the
	// checked rows; only a boolean true from the platform counts.
	Match bool
	// Checked is the number of rows that took part: 0 means the query
	// selected no row, so a false Match says nothing about the candidate.
	Checked int
}

// Reveal returns rows of table selected by q, newest first, with their
// secret columns in plaintext (NULL stays nil). q is a history query:
// Limit 1…100 (0 means 10), Offset, TimeRange, FilterAnd (never on a
// secret column) and Columns, to which the platform adds every secret
// column and tsp, device_key and authid; a nil q reads the 10 newest
// rows. Errors are *client.OpError naming "RevealSecrets" and
// secret.reveal.<table>; refusals keep their URI (see the Err variables).
func (s *Client) Reveal(ctx context.Context, table string, q *client.Query) ([]client.Row, error) {
	const op = "RevealSecrets"
	if err := checkTable(op, table); err != nil {
		return nil, err
	}
	payload, err := q.Payload()
	if err != nil {
		return nil, relabel(op, "", err)
	}
	uri := wire.RevealProc(table)
	res, err := s.c.CallData(ctx, uri, payload)
	if err != nil {
		return nil, relabel(op, table, err)
	}
	rows, err := revealedRows(res)
	if err != nil {
		return nil, &client.OpError{Op: op, URI: uri, Err: err}
	}
	return rows, nil
}

// revealedRows reads the answer of secret.reveal.<t>: a list of rows.
func revealedRows(res *client.Result) ([]client.Row, error) {
	if len(res.Args) == 0 || res.Args[0] == nil {
		return []client.Row{}, nil
	}
	list, ok := res.Args[0].([]any)
	if !ok {
		return nil, fmt.Errorf("%w: want a list of rows, got %T", ErrUnexpectedAnswer, res.Args[0])
	}
	rows := make([]client.Row, len(list))
	for i, r := range list {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: row %d is %T, not an object", ErrUnexpectedAnswer, i, r)
		}
		rows[i] = client.Row(m)
	}
	return rows, nil
}

// Verify checks candidate against column, a secret column of table, in
// the rows q selects: by default (a nil q, or Limit 0) the most recent
// row, else Limit 1…100 rows newest first after Offset, within TimeRange
// and FilterAnd (never on a secret column). The platform compares in
// constant time and answers whether one row matched and how many took
// part. Verify fails closed: anything but a boolean true is no match, and
// an answer that is not an object is an error (ErrUnexpectedAnswer) with
// no match. The candidate is sent only in the call and appears in no
// error. Errors are *client.OpError naming "VerifySecret" and
// secret.verify.<table>; refusals keep their URI (see the Err variables).
func (s *Client) Verify(ctx context.Context, table, column, candidate string, q *client.Query) (VerifyResult, error) {
	const op = "VerifySecret"
	if err := checkTable(op, table); err != nil {
		return VerifyResult{}, err
	}
	if strings.TrimSpace(column) == "" {
		return VerifyResult{}, invalidArg(op, "column", "the column is empty")
	}
	var query client.Query
	if q != nil {
		query = *q
	}
	if query.Limit == 0 {
		query.Limit = DefaultVerifyLimit
	}
	payload, err := query.Payload()
	if err != nil {
		return VerifyResult{}, relabel(op, "", err)
	}
	payload["column"] = column
	payload["candidate"] = candidate
	uri := wire.VerifyProc(table)
	res, err := s.c.CallData(ctx, uri, payload)
	if err != nil {
		return VerifyResult{}, withhold(op, uri, relabel(op, table, err), candidate)
	}
	v, err := verifyAnswer(res)
	if err != nil {
		return VerifyResult{}, &client.OpError{Op: op, URI: uri, Err: err}
	}
	return v, nil
}

// verifyAnswer reads {"match": bool, "checked": n} failing closed: only
// a boolean true matches; checked may be any whole number, floats
// included. Errors name the answer's type, never its content.
func verifyAnswer(res *client.Result) (VerifyResult, error) {
	var m map[string]any
	if len(res.Args) > 0 {
		m, _ = res.Args[0].(map[string]any)
	}
	if m == nil {
		var got any
		if len(res.Args) > 0 {
			got = res.Args[0]
		}
		return VerifyResult{}, fmt.Errorf("%w: want {match, checked}, got %T", ErrUnexpectedAnswer, got)
	}
	match, _ := m["match"].(bool)
	return VerifyResult{Match: match, Checked: count(m["checked"])}, nil
}

// count reads a non-negative whole number that may arrive as an integer
// or a float; anything else is 0.
func count(v any) int {
	switch x := v.(type) {
	case int64:
		return int(min(max(x, 0), math.MaxInt))
	case uint64:
		return int(min(x, math.MaxInt))
	case float64:
		if x >= 0 && x <= math.MaxInt32 {
			return int(x)
		}
	}
	return 0
}

// checkTable refuses a table name reads cannot have: empty, or with
// surrounding whitespace.
func checkTable(op, table string) error {
	if table == "" || strings.TrimSpace(table) != table {
		return invalidArg(op, table, "the table name is empty or has surrounding whitespace")
	}
	return nil
}
