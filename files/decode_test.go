package files

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

func TestDecodeEnvelope(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []any
		payload map[string]any
		code    string
	}{
		{"success", []any{map[string]any{"success": true, "payload": map[string]any{"a": int64(1)}}}, map[string]any{"a": int64(1)}, ""},
		{"no payload", []any{map[string]any{"success": true}}, map[string]any{}, ""},
		{"failure", []any{map[string]any{"success": false, "code": "NO_SUCH_OBJECT", "reason": "gone"}}, nil, CodeNoSuchObject},
		{"unknown code kept", []any{map[string]any{"success": false, "code": "RATE_LIMITED", "reason": "slow down"}}, nil, "RATE_LIMITED"},
		{"no code", []any{map[string]any{"success": false}}, nil, CodeInternal},
		{"no envelope", nil, nil, CodeInternal},
		{"not an object", []any{"ok"}, nil, CodeInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := decodeEnvelope(tc.args)
			if got := CodeOf(err); got != tc.code {
				t.Fatalf("code %q (%v), want %q", got, err, tc.code)
			}
			if diff := cmp.Diff(tc.payload, p); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRouterError(t *testing.T) {
	for uri, code := range map[string]string{
		wire.ErrNoSuchProcedure:      CodeNotAvailable,
		wire.ErrNotAuthorized:        CodeNotAuthorized,
		wire.ErrAuthorizationFailed:  CodeNotAuthorized,
		wire.ErrAuthenticationFailed: CodeNotAuthorized,
		wire.ErrRuntimeError:         "",
	} {
		we := &client.WampError{URI: uri}
		err := routerError(&client.OpError{Op: "Call", URI: "files.read.stat", Err: we})
		if CodeOf(err) != code {
			t.Errorf("%s: code %q, want %q", uri, CodeOf(err), code)
		}
		if !errors.Is(err, we) {
			t.Errorf("%s: the WAMP error is lost: %v", uri, err)
		}
	}
	if err := routerError(client.ErrNotConnected); !errors.Is(err, client.ErrNotConnected) || CodeOf(err) != "" {
		t.Errorf("sentinel: %v", err)
	}
}

func TestHTTPFailure(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, tc := range []struct {
		status int
		body   string
		code   string
	}{
		{403, "<Error><Code>RequestTimeTooSkewed</Code></Error>", CodeClockSkew},
		{403, "<Error><Code>QuotaExceeded</Code></Error>", CodeQuotaExceeded},
		{403, "<Error><Code>AccessDenied</Code></Error>", CodeNotAuthorized},
		{401, "", CodeNotAuthorized},
		{404, "<Error><Code>NoSuchKey</Code></Error>", CodeNoSuchObject},
		{500, long, CodeInternal},
		{411, "MissingContentLength", CodeInternal},
	} {
		e := httpFailure(tc.status, []byte(tc.body))
		if e.Code != tc.code || !strings.Contains(e.Reason, http.StatusText(tc.status)) {
			t.Errorf("%d %q: %v, want %s", tc.status, tc.body, e, tc.code)
		}
		if len(e.Reason) > maxQuoted+100 {
			t.Errorf("reason of %d bytes", len(e.Reason))
		}
	}
}

func TestObjectURL(t *testing.T) {
	for _, tc := range []struct {
		base, ns, key, version, want string
	}{
		{"https://files.example.test/", "default", "a b/ü?.txt", "", "https://files.example.test/f/7/default/a%20b/%C3%BC%3F.txt"},
		{"https://files.example.test//", "", "x", "", "https://files.example.test/f/7/default/x"},
		{"https://files.example.test", "photos", "a+b&c=d", `"e t"!*'()`, "https://files.example.test/f/7/photos/a%2Bb%26c%3Dd?v=%22e%20t%22!*'()"},
		{"", "default", "x", "", ""},
	} {
		if got := objectURL(tc.base, 7, tc.ns, tc.key, tc.version); got != tc.want {
			t.Errorf("objectURL(%q, %q, %q, %q) = %q, want %q", tc.base, tc.ns, tc.key, tc.version, got, tc.want)
		}
	}
}

func TestInlineData(t *testing.T) {
	for _, tc := range []struct {
		d    map[string]any
		want string
		code string
	}{
		{map[string]any{"data": "aGVsbG8=", "encoding": "base64"}, "hello", ""},
		{map[string]any{"data": "aGVsbG8"}, "hello", ""}, // unpadded
		{map[string]any{"data": []byte("raw")}, "raw", ""},
		{map[string]any{}, "", ""},
		{map[string]any{"data": "aGVsbG8=", "encoding": "hex"}, "", CodeInternal},
		{map[string]any{"data": "!!"}, "", CodeInternal},
		{map[string]any{"data": 5}, "", CodeInternal},
	} {
		got, err := inlineData(tc.d)
		if CodeOf(err) != tc.code || string(got) != tc.want {
			t.Errorf("inlineData(%v) = %q, %v", tc.d, got, err)
		}
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[string]int64{"1ns": 1, "1s": 1, "1.5s": 2, "15m": 900} {
		dd, _ := time.ParseDuration(d)
		if got := seconds(dd); got != want {
			t.Errorf("seconds(%s) = %d, want %d", d, got, want)
		}
	}
}

// FuzzDecode feeds arbitrary answers to the decoders of the file
// service's answers: they never panic.
func FuzzDecode(f *testing.F) {
	f.Add(true, "NO_SUCH_OBJECT", "aGVsbG8=", "base64", int64(5), "2026-01-02T03:04:05.123Z")
	f.Add(false, "", "", "", int64(-1), "")
	f.Fuzz(func(t *testing.T, ok bool, code, data, enc string, size int64, modified string) {
		env := map[string]any{"success": ok, "code": code, "payload": map[string]any{
			"data": data, "encoding": enc, "size": size, "last_modified": modified,
			"namespaces": []any{map[string]any{"name": code, "content_types": []any{data, 1}}},
		}}
		p, err := decodeEnvelope([]any{env})
		if ok != (err == nil) {
			t.Fatalf("success %v, error %v", ok, err)
		}
		if err != nil {
			return
		}
		_, _ = inlineData(p)
		_ = decodeObject(p, decodeCatalog(p))
	})
}
