package postgres

import "testing"

func TestSQLOp(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT 1":                   "select",
		"  insert into x values (1)": "insert",
		"-- note\n/* c */ (WITH a AS (select 1) select * from a)": "with",
		"CREATE SCHEMA IF NOT EXISTS s":                           "create",
		"explain select 1":                                        "other",
		"":                                                        "other",
		"-- only a comment":                                       "other",
		"SELECTED":                                                "other",
	} {
		if got := sqlOp(sql); got != want {
			t.Errorf("sqlOp(%q) = %q, want %q", sql, got, want)
		}
	}
}
