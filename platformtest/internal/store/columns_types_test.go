package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/flockgo/ironflock/template"
)

// TestColumnTypes: every column type of a template has its own
// description, with its own PostgreSQL type, and stores and gives out a
// value of its kind.
func TestColumnTypes(t *testing.T) {
	for _, tc := range []struct {
		typ      template.DataType
		in       any
		stored   any
		out      any
		kind     ValueKind
		sqlTypes string
	}{
		{template.TypeNumeric, "21.5x", 21.5, 21.5, KindNumber, "double precision"},
		{template.TypeBigint, "42", int64(42), int64(42), KindNumber, "bigint"},
		{template.TypeTimestamp, "2026-01-01T00:00:00Z", int64(1767225600000), "2026-01-01T00:00:00.000Z", KindTime, "timestamp with time zone"},
		{template.TypeString, 7.0, "7", "7", KindText, "text"},
		{template.TypeBoolean, "true", true, true, KindBool, "boolean"},
		{template.TypeJSON, map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, map[string]any{"a": int64(1)}, KindJSON, "jsonb"},
	} {
		ct := TypeOf(tc.typ)
		if ct.Type != tc.typ || ct.Kind != tc.kind || ct.SQL != tc.sqlTypes {
			t.Errorf("%s: described as %s, kind %d, SQL %q", tc.typ, ct.Type, ct.Kind, ct.SQL)
		}
		stored, code := StoreValue(tc.typ, tc.in)
		if code != "" || !reflect.DeepEqual(stored, tc.stored) {
			t.Errorf("%s: %#v stored as %#v (%s), want %#v", tc.typ, tc.in, stored, code, tc.stored)
		}
		if out := OutValue(tc.typ, stored); !reflect.DeepEqual(out, tc.out) {
			t.Errorf("%s: %#v goes out as %#v, want %#v", tc.typ, stored, out, tc.out)
		}
		// Written to PostgreSQL and read back as the driver gives it
		// (jsonb as the decoded value), the stored value comes back.
		arg, err := ct.SQLArg(stored)
		if err != nil {
			t.Errorf("%s: %#v as a SQL parameter: %v", tc.typ, stored, err)
			continue
		}
		if js, ok := arg.([]byte); ok {
			var decoded any
			if err := json.Unmarshal(js, &decoded); err != nil {
				t.Fatal(err)
			}
			arg = decoded
		}
		if back, ok := ct.SQLScan(arg); !ok || !reflect.DeepEqual(back, stored) {
			t.Errorf("%s: %#v written as %#v scans back as %#v (%v)", tc.typ, stored, arg, back, ok)
		}
	}
	if _, err := TypeOf(template.TypeTimestamp).SQLArg(int64(SQLMaxMs)); err == nil {
		t.Error("a timestamp past PostgreSQL's range became a SQL parameter")
	}
	if _, ok := TypeOf(template.TypeBigint).SQLScan("42"); ok {
		t.Error("text scanned from a bigint column was taken")
	}
	if _, code := StoreValue(template.TypeBigint, []any{1.0}); code != CodeDatatypeMismatch {
		t.Errorf("a list into a bigint column: code %q, want %s", code, CodeDatatypeMismatch)
	}
}
