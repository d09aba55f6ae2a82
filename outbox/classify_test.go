package outbox

import (
	"context"
	"fmt"
	"testing"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

func TestClassify(t *testing.T) {
	refusal := func(uri string, args ...any) error {
		return &client.OpError{Op: "AppendRowsToTable", URI: "appendBulk.1.1.t", Err: &client.WampError{URI: uri, Args: args}}
	}
	pg := func(code string) error {
		return refusal(wire.ErrRuntimeError, map[string]any{"name": "error", "severity": "ERROR", "code": code})
	}
	for _, tc := range []struct {
		err  error
		ctx  error
		want class
	}{
		{nil, nil, delivered},
		{fmt.Errorf("x: %w", client.ErrNotConnected), nil, again},
		{fmt.Errorf("x: %w: %w", client.ErrConnectionLost, client.ErrNotSent), nil, again},
		{fmt.Errorf("x: %w: %w", client.ErrConnectionLost, client.ErrOutcomeUnknown), nil, unknown},
		{context.DeadlineExceeded, nil, unknown},
		{fmt.Errorf("x: %w", client.ErrTimeout), nil, unknown},
		{refusal(wire.ErrTimeout), nil, unknown},
		{refusal(wire.ErrCanceled), nil, unknown},
		{fmt.Errorf("x: %w", client.ErrStopped), nil, stopped},
		{context.Canceled, context.Canceled, stopped},
		{fmt.Errorf("x: %w", client.ErrUnknownTable), nil, tableRefused},
		{fmt.Errorf("x: %w", client.ErrNotServed), nil, tableRefused},
		{fmt.Errorf("x: %w", client.ErrInvalidArgument), nil, rowRefused},
		{refusal(wire.ErrRuntimeError, map[string]any{}), nil, rowRefused},
		{pg("42804"), nil, rowRefused},
		{pg("22007"), nil, rowRefused},
		{pg("23505"), nil, rowRefused},
		{pg("08006"), nil, temporary},
		{pg("40001"), nil, temporary},
		{pg("53100"), nil, temporary},
		{pg("57P01"), nil, temporary},
		{pg("XX000"), nil, temporary},
		{refusal(wire.ErrRuntimeError, map[string]any{"method": "typia.assert", "path": "$input[0]"}), nil, rowRefused},
		{refusal(wire.ErrEntityKeyConflict), nil, rowRefused},
		{refusal(wire.ErrSecretSentinel), nil, rowRefused},
		{refusal(wire.ErrSecretCiphertext), nil, rowRefused},
		{refusal(wire.ErrInvalidArgument, "bad payload"), nil, rowRefused},
		{refusal(wire.ErrStorageFull), nil, temporary},
		{refusal(wire.ErrStorageOverusage), nil, temporary},
		{refusal(wire.ErrRateLimited), nil, temporary},
		{refusal(wire.ErrNotAuthorized), nil, temporary},
		{refusal(wire.ErrNoSuchProcedure), nil, temporary},
		{refusal("com.example.unheard_of"), nil, temporary},
		{fmt.Errorf("something else"), nil, temporary},
	} {
		if got := classify(tc.err, tc.ctx); got != tc.want {
			t.Errorf("classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
