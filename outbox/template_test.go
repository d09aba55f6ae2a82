package outbox_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/template"
)

func TestCheckTemplate(t *testing.T) {
	tpl, _, err := template.ParseData([]byte(appTemplate + `
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
	if err := outbox.CheckTemplate(tpl, "readings", "row_id"); err != nil {
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
		err := outbox.CheckTemplate(tpl, tc.table, tc.col)
		if !errors.Is(err, outbox.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckTemplate(%s, %s) = %v, want ErrInvalidArgument mentioning %q", tc.table, tc.col, err, tc.want)
		}
	}
}
