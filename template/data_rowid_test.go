package template_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/template"
)

func TestCheckRowIDColumn(t *testing.T) {
	tpl, _, err := template.ParseData([]byte(`
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: row_id, name: Row id, dataType: string}
    - tablename: plain
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
    - tablename: odd
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: num_id, name: Number id, dataType: bigint}
        - {id: moved_id, name: Moved id, dataType: string, path: "args[0].meta.id"}
        - {id: hidden_id, name: Hidden id, dataType: string, secret: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := tpl.CheckRowIDColumn("readings", "row_id"); err != nil {
		t.Errorf("readings.row_id: %v", err)
	}
	for _, tc := range []struct{ table, col, want string }{
		{"nosuch", "row_id", "no table"},
		{"error-logs", "id", "no table"},
		{"plain", "row_id", "no column"},
		{"odd", "num_id", "string column"},
		{"odd", "moved_id", "args[0].meta.id"},
		{"odd", "hidden_id", "secret"},
	} {
		err := tpl.CheckRowIDColumn(tc.table, tc.col)
		if !errors.Is(err, template.ErrRowIDColumn) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckRowIDColumn(%s, %s) = %v, want ErrRowIDColumn mentioning %q", tc.table, tc.col, err, tc.want)
		}
	}
}
