package template

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cols returns the minimal template with extra column lines (from line 6).
func cols(lines ...string) string {
	return m(indent(8, lines))
}

// opts returns a one-table template with extra table keys from line 4;
// the columns follow them.
func opts(lines ...string) string {
	return "data:\n  tables:\n    - tablename: t\n" + indent(6, lines) +
		"      columns:\n        - {id: tsp, dataType: timestamp}\n"
}

// entity returns a table with the columns tsp, machine and the secret
// api_key (lines 5 to 7) and extra table keys from line 8.
func entity(lines ...string) string {
	return "data:\n  tables:\n    - tablename: t\n      columns:\n        - {id: tsp, dataType: timestamp}\n" +
		"        - {id: machine, dataType: string}\n        - {id: api_key, dataType: string, secret: true}\n" +
		indent(6, lines)
}

func indent(n int, lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.Repeat(" ", n) + l + "\n")
	}
	return b.String()
}

// named returns a template with one table of that name (line 3, col 18).
func named(name string) string {
	return "data:\n  tables:\n    - tablename: " + name + "\n      columns: [{id: tsp, dataType: timestamp}]\n"
}

func TestParseDataTableNames(t *testing.T) {
	long := strings.Repeat("a", 63)
	runData(t, []tcase{
		{name: "lower case, digits, underscore", src: named("sensor_data_2")},
		{name: "63 bytes", src: named(long)},
		{name: "64 bytes", src: named(long + "b"), want: []want{E(3, 18, "data.tables[0].tablename", "name is 64 bytes long; allowed: at most 63")}},
		{name: "upper case", src: named("Sensor"), want: []want{E(3, 18, "data.tables[0].tablename", `invalid name "Sensor"; allowed: a lower-case letter, then lower-case letters, digits and _ (^[a-z][a-z0-9_]*$)`)}},
		{name: "leading digit", src: named(`"1st"`), want: []want{E(3, 18, "data.tables[0].tablename", `invalid name "1st"`)}},
		{name: "hyphen", src: named("sensor-data"), want: []want{E(3, 18, "data.tables[0].tablename", `invalid name "sensor-data"`)}},
		{name: "leading underscore", src: named("_t"), want: []want{E(3, 18, "data.tables[0].tablename", `invalid name "_t"`)}},
		{name: "reserved word", src: named("select"), want: []want{E(3, 18, "data.tables[0].tablename", `"select" is a reserved SQL word; choose another name`)}},
		{name: "reserved word user", src: named("user"), want: []want{E(3, 18, "data.tables[0].tablename", `"user" is a reserved SQL word`)}},
		{name: "non-reserved key word", src: named("data")},
		{name: "system table", src: named("error-logs"), want: []want{E(3, 18, "data.tables[0].tablename", `"error-logs" is the reserved system table; choose another name`)}},
		{name: "number", src: named("123"), want: []want{
			W(3, 18, "data.tables[0].tablename", "the number 123 is read as text"),
			E(3, 18, "data.tables[0].tablename", `invalid name "123"`),
		}},
		{name: "list", src: named("[a]"), want: []want{E(3, 18, "data.tables[0].tablename", "must be a string, got a list")}},
		{name: "missing", src: "data:\n  tables:\n    - columns: [{id: tsp, dataType: timestamp}]\n", want: []want{E(3, 7, "data.tables[0].tablename", "tablename is required")}},
		{name: "null", src: "data:\n  tables:\n    - tablename:\n      columns: [{id: tsp, dataType: timestamp}]\n", want: []want{E(3, 7, "data.tables[0].tablename", "tablename is required")}},
		{name: "duplicate table", src: named("a") + "    - tablename: a\n      columns: [{id: tsp, dataType: timestamp}]\n",
			want: []want{E(5, 18, "data.tables[1].tablename", `duplicate name "a" (first at line 3); table and transform names must be unique`)}},
		{name: "transform named like a table", src: named("a") + "  transforms:\n    - tablename: a\n      sql: SELECT 1\n",
			want: []want{E(6, 18, "data.transforms[0].tablename", `duplicate name "a" (first at line 3)`)}},
		{name: "unknown table key", src: opts("tableName: x"), want: []want{W(4, 7, "data.tables[0].tableName", `unknown key "tableName" is ignored by the platform; did you mean "tablename"?`)}},
	})
}

func TestParseDataTableOptions(t *testing.T) {
	runData(t, []tcase{
		{name: "all options", src: opts(
			"description: readings",
			"private: true",
			"chunkTimeInterval: 1 day",
			"dropAfter: 30 days",
			"columnstore: true",
			"columnstoreAfter: 7 days",
			"downsample: {bucket: 1 hour, keepFor: 1 year, paths: [tsp]}",
		)},
		{name: "private yes", src: opts("private: yes"), want: []want{E(4, 16, "data.tables[0].private", `must be a boolean: write true or false; "yes" is a string in YAML 1.2`)}},
		{name: "private off", src: opts("private: off"), want: []want{E(4, 16, "data.tables[0].private", `"off" is a string in YAML 1.2`)}},
		{name: "private quoted", src: opts(`private: "true"`), want: []want{E(4, 16, "data.tables[0].private", `"true" is a string in YAML 1.2`)}},
		{name: "private number", src: opts("private: 1"), want: []want{E(4, 16, "data.tables[0].private", "must be a boolean (true or false), got the number 1")}},
		{name: "private True", src: opts("private: True")},
		{name: "description number", src: opts("description: 2024-01-01"), want: []want{W(4, 20, "data.tables[0].description", "the date 2024-01-01 is read as text; quote it")}},
		{name: "description list", src: opts("description: [a]"), want: []want{E(4, 20, "data.tables[0].description", "must be a string, got a list")}},
		{name: "interval without unit", src: opts("dropAfter: thirty"), want: []want{W(4, 18, "data.tables[0].dropAfter", `"thirty" does not look like an interval; write quantities and units, for example "30 days"`)}},
		{name: "interval compound", src: opts("chunkTimeInterval: 1 day 12 hours")},
		{name: "interval number", src: opts("dropAfter: 30"), want: []want{W(4, 18, "data.tables[0].dropAfter", "the number 30 is not an interval text")}},
		{name: "interval mapping", src: opts("dropAfter: {days: 30}"), want: []want{E(4, 18, "data.tables[0].dropAfter", `must be an interval text such as "30 days", got a mapping`)}},
		{name: "columnstore yes", src: opts("columnstore: yes"), want: []want{E(4, 20, "data.tables[0].columnstore", `"yes" is a string`)}},
		{name: "columnstoreAfter alone", src: opts("columnstoreAfter: 7 days"), want: []want{W(4, 25, "data.tables[0].columnstoreAfter", "has no effect unless columnstore is true")}},
		{name: "downsample not a mapping", src: opts("downsample: 1 hour"), want: []want{E(4, 19, "data.tables[0].downsample", "must be a mapping with the keys bucket, keepFor and paths")}},
		{name: "downsample without bucket", src: opts("downsample: {keepFor: 1 year}"), want: []want{E(4, 19, "data.tables[0].downsample.bucket", `bucket is required; the bucket width, for example "1 hour"`)}},
		{name: "downsample unknown path", src: opts("downsample: {bucket: 1 hour, paths: [temperature]}"), want: []want{W(4, 44, "data.tables[0].downsample.paths[0]", `"temperature" does not start with a column of this table`)}},
		{name: "downsample paths not a list", src: opts("downsample: {bucket: 1 hour, paths: tsp}"), want: []want{E(4, 43, "data.tables[0].downsample.paths", "must be a list of columns to downsample")}},
		{name: "downsample unknown key", src: opts("downsample: {bucket: 1 hour, every: 2}"), want: []want{W(4, 36, "data.tables[0].downsample.every", "allowed: bucket, keepFor, paths")}},
	})
	tpl := mustData(t, opts("private: true", "dropAfter: 30 days", "columnstore: true", "columnstoreAfter: 7 days", "chunkTimeInterval: 1 day",
		"downsample: {bucket: 1 hour, keepFor: 1 year, paths: [tsp]}"))
	wantTable := Table{
		Name: "t", Private: true, DropAfter: "30 days", Columnstore: true, ColumnstoreAfter: "7 days", ChunkTimeInterval: "1 day",
		Downsample: &Downsample{Bucket: "1 hour", KeepFor: "1 year", Paths: []string{"tsp"}},
		Columns:    []Column{{ID: "tsp", Type: TypeTimestamp, Path: "args[0].tsp"}},
	}
	if d := cmp.Diff(wantTable, tpl.Tables[0]); d != "" {
		t.Error(d)
	}
}

func TestParseDataColumns(t *testing.T) {
	runData(t, []tcase{
		{name: "every data type", src: cols(
			"- {id: a, dataType: numeric}",
			"- {id: b, dataType: bigint}",
			"- {id: c, dataType: timestamp}",
			"- {id: d, dataType: string}",
			"- {id: e, dataType: boolean}",
			"- {id: f, dataType: json}",
		)},
		{name: "unknown type", src: cols("- {id: v, dataType: float}"), want: []want{E(6, 29, "data.tables[0].columns[1].dataType", `unknown type "float"; allowed: numeric, bigint, timestamp, string, boolean, json`)}},
		{name: "type in capitals", src: cols("- {id: v, dataType: Numeric}"), want: []want{E(6, 29, "data.tables[0].columns[1].dataType", `unknown type "Numeric"; allowed: numeric, bigint, timestamp, string, boolean, json (did you mean "numeric"?)`)}},
		{name: "type missing", src: cols("- {id: v}"), want: []want{E(6, 11, "data.tables[0].columns[1].dataType", "dataType is required; allowed: numeric, bigint, timestamp, string, boolean, json")}},
		{name: "id missing", src: cols("- {dataType: string}"), want: []want{E(6, 11, "data.tables[0].columns[1].id", "id is required")}},
		{name: "id pattern", src: cols("- {id: Temp, dataType: numeric}"), want: []want{E(6, 16, "data.tables[0].columns[1].id", `invalid id "Temp"; allowed: a lower-case letter, then lower-case letters, digits and _`)}},
		{name: "id too long", src: cols("- {id: " + strings.Repeat("c", 64) + ", dataType: numeric}"), want: []want{E(6, 16, "data.tables[0].columns[1].id", "id is 64 bytes long; allowed: at most 63")}},
		{name: "id device_key", src: cols("- {id: device_key, dataType: bigint}"), want: []want{E(6, 16, "data.tables[0].columns[1].id", `"device_key" is an implicit column the platform adds; choose another id (reserved: device_key, latest_flag, authid)`)}},
		{name: "id latest_flag", src: cols("- {id: latest_flag, dataType: boolean}"), want: []want{E(6, 16, "data.tables[0].columns[1].id", `"latest_flag" is an implicit column`)}},
		{name: "id authid", src: cols("- {id: authid, dataType: string}"), want: []want{E(6, 16, "data.tables[0].columns[1].id", `"authid" is an implicit column`)}},
		{name: "id reserved word allowed", src: cols("- {id: user, dataType: string}")},
		{name: "duplicate id", src: cols("- {id: v, dataType: numeric}", "- {id: v, dataType: string}"), want: []want{E(7, 16, "data.tables[0].columns[2].id", `duplicate column id "v" (first at line 6); ids are unique within a table`)}},
		{name: "column not a mapping", src: cols("- temperature"), want: []want{E(6, 11, "data.tables[0].columns[1]", "must be a column mapping with id and dataType")}},
		{name: "columns not a list", src: "data:\n  tables:\n    - tablename: t\n      columns: {tsp: timestamp}\n",
			want: []want{
				E(4, 16, "data.tables[0].columns", "must be a list of columns, got a mapping"),
				E(4, 16, "data.tables[0].columns", "no tsp column"),
			}},
		{name: "columns missing", src: "data:\n  tables:\n    - tablename: t\n", want: []want{E(3, 7, "data.tables[0].columns", "columns is required; every table declares at least the column tsp with dataType timestamp")}},
		{name: "no tsp", src: "data:\n  tables:\n    - tablename: t\n      columns:\n        - {id: v, dataType: numeric}\n", want: []want{E(5, 9, "data.tables[0].columns", "no tsp column; every table must declare a column with id tsp and dataType timestamp")}},
		{name: "tsp of the wrong type", src: "data:\n  tables:\n    - tablename: t\n      columns:\n        - {id: tsp, dataType: string}\n", want: []want{E(5, 31, "data.tables[0].columns[0].dataType", "the tsp column must have dataType timestamp, got string")}},
		{name: "names and descriptions", src: cols("- {id: v, name: Value, description: the value, dataType: numeric}")},
		{name: "unknown column key", src: cols("- {id: v, dataType: numeric, unit: C}"), want: []want{W(6, 38, "data.tables[0].columns[1].unit", "allowed: id, name, description, dataType, path, secret")}},
		{name: "misspelt column key", src: cols("- {id: v, datatype: numeric}"), want: []want{
			E(6, 11, "data.tables[0].columns[1].dataType", "dataType is required"),
			W(6, 19, "data.tables[0].columns[1].datatype", `did you mean "dataType"?`),
		}},
	})
}

func TestParseDataColumnPaths(t *testing.T) {
	var valid []tcase
	for _, p := range []string{"args[0]", "args[1]", "args[2].tsp", "args[0].sensor.value", "kwargs.DEVICE_NAME", "details.publisher", `args[0]["a.b"]`, `args[0]['x y']`} {
		valid = append(valid, tcase{name: p, src: cols("- id: v", "  dataType: json", "  path: '"+strings.ReplaceAll(p, "'", "''")+"'")})
	}
	runData(t, valid)
	runData(t, []tcase{
		{name: "not under args", src: cols("- {id: v, dataType: numeric, path: temperature}"), want: []want{E(6, 44, "data.tables[0].columns[1].path", `path "temperature" must start at args, kwargs or details (for example args[0].temperature)`)}},
		{name: "unclosed bracket", src: cols(`- {id: v, dataType: numeric, path: "args[0"}`), want: []want{E(6, 44, "data.tables[0].columns[1].path", `invalid path "args[0": expected [index] or ["key"] at byte 4; write it like args[0].temperature`)}},
		{name: "empty key", src: cols(`- {id: v, dataType: numeric, path: "args..x"}`), want: []want{E(6, 44, "data.tables[0].columns[1].path", `invalid path "args..x": empty key at byte 5`)}},
		{name: "non-numeric index", src: cols(`- {id: v, dataType: numeric, path: "args[x]"}`), want: []want{E(6, 44, "data.tables[0].columns[1].path", `invalid path "args[x]": expected [index]`)}},
		{name: "empty", src: cols(`- {id: v, dataType: numeric, path: ""}`), want: []want{E(6, 44, "data.tables[0].columns[1].path", `invalid path "": empty path`)}},
	})
	tpl := mustData(t, cols("- {id: v, dataType: numeric}", "- {id: w, dataType: json, path: 'kwargs.w'}"))
	got := []string{tpl.Tables[0].Columns[0].Path, tpl.Tables[0].Columns[1].Path, tpl.Tables[0].Columns[2].Path}
	if d := cmp.Diff([]string{"args[0].tsp", "args[0].v", "kwargs.w"}, got); d != "" {
		t.Errorf("paths (default args[0].<id>): %s", d)
	}
}

func TestParseDataSecrets(t *testing.T) {
	runData(t, []tcase{
		{name: "secret string", src: cols("- {id: key, dataType: string, secret: true}")},
		{name: "secret false on numeric", src: cols("- {id: v, dataType: numeric, secret: false}")},
		{name: "secret numeric", src: cols("- {id: v, dataType: numeric, secret: true}"), want: []want{E(6, 46, "data.tables[0].columns[1].secret", "secret is only allowed on string columns; this column is numeric")}},
		{name: "secret json", src: cols("- {id: v, dataType: json, secret: true}"), want: []want{E(6, 43, "data.tables[0].columns[1].secret", "this column is json")}},
		{name: "secret tsp", src: "data:\n  tables:\n    - tablename: t\n      columns:\n        - {id: tsp, dataType: timestamp, secret: true}\n", want: []want{E(5, 50, "data.tables[0].columns[0].secret", "the tsp column cannot be secret")}},
		{name: "secret yes", src: cols("- {id: key, dataType: string, secret: yes}"), want: []want{E(6, 47, "data.tables[0].columns[1].secret", `must be a boolean: write true or false; "yes" is a string`)}},
	})
}

func TestParseDataEntityKey(t *testing.T) {
	runData(t, []tcase{
		{name: "one column", src: entity("maintainLatestFlagFor: [machine]")},
		{name: "implicit columns", src: entity("maintainLatestFlagFor: [device_key, authid, machine]")},
		{name: "empty list", src: entity("maintainLatestFlagFor: []")},
		{name: "tsp", src: entity("maintainLatestFlagFor: [machine, tsp]"), want: []want{E(8, 40, "data.tables[0].maintainLatestFlagFor[1]", "tsp cannot be part of the entity key")}},
		{name: "unknown column", src: entity("maintainLatestFlagFor: [serial]"), want: []want{E(8, 31, "data.tables[0].maintainLatestFlagFor[0]", `unknown column "serial"; allowed: a column of this table other than tsp (machine, api_key) or device_key, authid`)}},
		{name: "secret column", src: entity("maintainLatestFlagFor: [api_key]"), want: []want{E(8, 31, "data.tables[0].maintainLatestFlagFor[0]", `secret column "api_key" cannot be part of the entity key`)}},
		{name: "listed twice", src: entity("maintainLatestFlagFor: [machine, machine]"), want: []want{E(8, 40, "data.tables[0].maintainLatestFlagFor[1]", `column "machine" is listed twice (first at line 8)`)}},
		{name: "one column as a string", src: entity("maintainLatestFlagFor: machine")},
		{name: "an unknown column as a string", src: entity("maintainLatestFlagFor: serial"), want: []want{E(8, 30, "data.tables[0].maintainLatestFlagFor", `unknown column "serial"`)}},
		{name: "a number, not a list", src: entity("maintainLatestFlagFor: 7"), want: []want{E(8, 30, "data.tables[0].maintainLatestFlagFor", "must be a list of column ids, for example [machine], got")}},
	})
	tpl := mustData(t, entity("maintainLatestFlagFor: [machine, device_key]"))
	if d := cmp.Diff([]string{"machine", "device_key"}, tpl.Tables[0].EntityKey); d != "" {
		t.Error(d)
	}
	tpl = mustData(t, entity("maintainLatestFlagFor: machine"))
	if d := cmp.Diff([]string{"machine"}, tpl.Tables[0].EntityKey); d != "" {
		t.Errorf("a single string is a one-element list: %s", d)
	}
}

// transform returns a template with one table and a transform whose keys
// start at line 8 (the transform's tablename is on line 7).
func transform(lines ...string) string {
	return m("  transforms:\n    - tablename: v\n" + indent(6, lines))
}

func TestParseDataTransforms(t *testing.T) {
	runData(t, []tcase{
		{name: "valid", src: transform(
			"description: hourly means",
			"private: true",
			"materialize: true",
			"schedule: '0 * * * *'",
			"sql: SELECT tsp FROM t",
			"columns:",
			"  - {id: tsp, dataType: timestamp}",
			"  - {id: mean, dataType: numeric}",
		)},
		{name: "no columns, no tsp", src: transform("sql: SELECT 1", "columns: [{id: mean, dataType: numeric}]")},
		{name: "sql missing", src: transform("schedule: '0 * * * *'"), want: []want{E(7, 7, "data.transforms[0].sql", "sql is required; the SELECT statement of the view")}},
		{name: "sql blank", src: transform("sql: '  '"), want: []want{E(8, 12, "data.transforms[0].sql", "sql is empty; write the SELECT statement of the view")}},
		{name: "name rules", src: m("  transforms:\n    - tablename: Hourly\n      sql: SELECT 1\n"), want: []want{E(7, 18, "data.transforms[0].tablename", `invalid name "Hourly"`)}},
		{name: "name reserved word", src: m("  transforms:\n    - tablename: order\n      sql: SELECT 1\n"), want: []want{E(7, 18, "data.transforms[0].tablename", `"order" is a reserved SQL word`)}},
		{name: "name system table", src: m("  transforms:\n    - tablename: error-logs\n      sql: SELECT 1\n"), want: []want{E(7, 18, "data.transforms[0].tablename", `"error-logs" is the reserved system table`)}},
		{name: "two transforms of one name", src: transform("sql: SELECT 1") + "    - tablename: v\n      sql: SELECT 2\n", want: []want{E(9, 18, "data.transforms[1].tablename", `duplicate name "v" (first at line 7)`)}},
		{name: "six-field schedule", src: transform("sql: SELECT 1", "schedule: '30 0 */2 * * mon-fri'")},
		{name: "schedule field count", src: transform("sql: SELECT 1", "schedule: '0 * * *'"), want: []want{E(9, 17, "data.transforms[0].schedule", `cron schedule "0 * * *" has 4 fields; allowed: 5 (minute hour day-of-month month day-of-week) or 6 (a leading second)`)}},
		{name: "schedule out of range", src: transform("sql: SELECT 1", "schedule: '0 24 * * *'"), want: []want{E(9, 17, "data.transforms[0].schedule", `cron hour field "24": 24 is out of range; allowed: 0 to 23`)}},
		{name: "schedule macro", src: transform("sql: SELECT 1", "schedule: '@daily'"), want: []want{E(9, 17, "data.transforms[0].schedule", `has 1 fields; allowed: 5`)}},
		{name: "materialize yes", src: transform("sql: SELECT 1", "materialize: yes"), want: []want{E(9, 20, "data.transforms[0].materialize", `"yes" is a string in YAML 1.2`)}},
		{name: "column rules apply", src: transform("sql: SELECT 1", "columns: [{id: Mean, dataType: float, secret: true}]"), want: []want{
			E(9, 22, "data.transforms[0].columns[0].id", `invalid id "Mean"`),
			E(9, 38, "data.transforms[0].columns[0].dataType", `unknown type "float"`),
		}},
		{name: "transform not a mapping", src: m("  transforms: [v]\n"), want: []want{E(6, 16, "data.transforms[0]", "must be a transform mapping with tablename and sql")}},
		{name: "unknown key", src: transform("sql: SELECT 1", "query: SELECT 2"), want: []want{W(9, 7, "data.transforms[0].query", "allowed: tablename, description, private, materialize, schedule, sql, columns")}},
	})
	tpl := mustData(t, transform("sql: SELECT 1", "materialize: true", "schedule: '0 * * * *'", "columns: [{id: mean, dataType: numeric}]"))
	tr, _ := tpl.Transform("v")
	wantTr := Transform{Name: "v", Materialize: true, Schedule: "0 * * * *", SQL: "SELECT 1",
		Columns: []Column{{ID: "mean", Type: TypeNumeric, Path: "args[0].mean"}}}
	if d := cmp.Diff(&wantTr, tr); d != "" {
		t.Error(d)
	}
	if c, ok := tr.Column("mean"); !ok || c.Type != TypeNumeric {
		t.Errorf("Column(mean) = %v, %v", c, ok)
	}
}

func TestDataTypeValid(t *testing.T) {
	for _, d := range []DataType{"numeric", "bigint", "timestamp", "string", "boolean", "json"} {
		if !d.Valid() {
			t.Errorf("%q not valid", d)
		}
	}
	for _, d := range []DataType{"", "float", "Numeric", "int"} {
		if d.Valid() {
			t.Errorf("%q valid", d)
		}
	}
}
