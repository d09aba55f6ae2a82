// This file tests the reading of the platform's answers and refusals as
// pure logic: discovery answers of every shape the wire allows, and the
// mapping of refusal URIs to codes.

package crossapp

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

func TestParseInfo(t *testing.T) {
	readings := map[string]any{"tablename": "readings", "columns": []any{
		map[string]any{"id": "tsp", "name": "Time", "dataType": "timestamp"},
		map[string]any{"id": "k", "dataType": "string", "secret": true, "path": "a.k"},
	}}
	cat := map[string]any{"tables": []any{readings}}
	wantCat := Catalog{Tables: []Entry{{Name: "readings", Columns: []Column{
		{ID: "tsp", Name: "Time", DataType: "timestamp"},
		{ID: "k", DataType: "string", Secret: true, Path: "a.k"},
	}}}}
	for _, tc := range []struct {
		name   string
		answer any
		want   ProviderInfo
		code   string // of the error, "" for success
		reason string // a part of the error's message
	}{
		{name: "both stages, any case", answer: map[string]any{"app": "Weather", "provider_app_key": int64(77), "stages": map[string]any{"DEV": cat, "prod": cat}},
			want: ProviderInfo{App: "Weather", AppKey: 77, Stages: map[client.Stage]Catalog{client.Dev: wantCat, client.Prod: wantCat}}},
		{name: "an empty catalog is no stage", answer: map[string]any{"app": "w", "provider_app_key": 77.0, "stages": map[string]any{"dev": map[string]any{}, "prod": map[string]any{"tables": []any{}, "transforms": []any{}}}},
			want: ProviderInfo{App: "w", AppKey: 77, Stages: map[client.Stage]Catalog{}}},
		{name: "unknown stage keys are ignored", answer: map[string]any{"provider_app_key": int64(5), "stages": map[string]any{"staging": cat}},
			want: ProviderInfo{App: "asked", AppKey: 5, Stages: map[client.Stage]Catalog{}}},
		{name: "no answer", answer: nil, code: CodeProviderNotInstalled, reason: `app "asked"`},
		{name: "an empty object", answer: map[string]any{}, code: CodeProviderNotInstalled, reason: `app "asked"`},
		{name: "not an object", answer: []any{}, code: CodeProviderNotInstalled, reason: "a []interface {}"},
		{name: "no key", answer: map[string]any{"app": "Platform-Spelling", "stages": map[string]any{"dev": cat}}, code: CodeProviderNotInstalled, reason: `app "Platform-Spelling"`},
		{name: "key zero", answer: map[string]any{"provider_app_key": int64(0)}, code: CodeProviderNotInstalled, reason: `app "asked"`},
		{name: "malformed", answer: map[string]any{"provider_app_key": "seventy"}, reason: "unexpected answer"},
	} {
		got, err := parseInfo("asked", tc.answer)
		if tc.reason == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, diff)
			}
			continue
		}
		if err == nil || CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: error %v, want code %q containing %q", tc.name, err, tc.code, tc.reason)
		}
	}
}

func TestMapRefusal(t *testing.T) {
	for uri, code := range map[string]string{
		wire.ErrAppAccessNoGrant:      CodeNoGrant,
		wire.ErrAppAccessUnknownApp:   CodeUnknownApp,
		wire.ErrAppAccessNotInstalled: CodeProviderNotInstalled,
		wire.ErrNotAuthorized:         CodeNotAuthorized,
		wire.ErrAuthorizationFailed:   CodeNotAuthorized,
		wire.ErrAuthenticationFailed:  CodeNotAuthorized,
		wire.ErrNoAuthMethod:          CodeNotAuthorized,
		wire.ErrNoSuchProcedure:       "",
		wire.ErrInvalidArgument:       "",
	} {
		refusal := &client.WampError{URI: uri, Args: []any{"denied"}}
		err := mapRefusal("weather", &client.OpError{Op: "Call", URI: wire.AppAccessResolve, Err: refusal})
		if CodeOf(err) != code {
			t.Errorf("%s: code %q, want %q", uri, CodeOf(err), code)
		}
		var we *client.WampError
		if !errors.As(err, &we) || we != refusal {
			t.Errorf("%s: the refusal is lost: %v", uri, err)
		}
		if code != "" && !strings.HasSuffix(err.Error(), uri+`: "denied"`) {
			t.Errorf("%s: message %q", uri, err)
		}
		if again := mapRefusal("weather", err); again != err {
			t.Errorf("%s: mapped twice: %v", uri, again)
		}
	}
}
