package template_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/flockgo/ironflock/template"
)

func ExampleParseData() {
	src := []byte(`
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temperature, dataType: numeric, path: "args[0].sensor.value"}
    - tablename: credentials
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: machine, dataType: string}
        - {id: api_key, dataType: string, secret: true}
consumes:
  - app: "*"
`)
	t, _, err := template.ParseData(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range t.TableNames() {
		tb, _ := t.Table(name)
		fmt.Printf("%s: %d columns, entity key %v, secret %v\n", tb.Name, len(tb.Columns), tb.EntityKey, tb.HasSecret())
	}
	col, _ := t.Tables[0].Column("temperature")
	fmt.Println(col.Type, col.Path)
	fmt.Println(t.NamespaceNames())
	// Output:
	// credentials: 3 columns, entity key [machine], secret true
	// error-logs: 5 columns, entity key [], secret false
	// sensordata: 2 columns, entity key [], secret false
	// numeric args[0].sensor.value
	// [default]
}

func ExampleParseData_invalid() {
	src := []byte(`data:
  tables:
    - tablename: readings
      private: yes
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: value, dataType: float}
`)
	_, findings, err := template.ParseData(src)
	var terr *template.Error
	fmt.Println(errors.As(err, &terr), len(findings))
	for _, f := range findings {
		fmt.Println(f)
	}
	// Output:
	// true 2
	// data-template.yml:4:16: data.tables[0].private: must be a boolean: write true or false; "yes" is a string in YAML 1.2
	// data-template.yml:7:33: data.tables[0].columns[1].dataType: unknown type "float"; allowed: numeric, bigint, timestamp, string, boolean, json
}

func ExampleParseAgents() {
	src := []byte(`
assistant:
  main: true
  system_prompt: You help the operators.
  max_context_tokens: 32000
  messages_after_summary: 20
  max_iterations: 10
  tools:
    read_temperature:
      description: Reads a sensor
      topic: read_temperature
      parameters:
        sensor: {type: string, description: which sensor, required: true}
`)
	t, findings, err := template.ParseAgents(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	tool := t.MainAgent().Tools["read_temperature"]
	fmt.Println(t.Main, tool.Topic, tool.Parameters["required"])
	fmt.Println(len(findings), "findings")
	// Output:
	// assistant read_temperature [sensor]
	// 0 findings
}

func ExampleValidateDir() {
	dir, _ := os.MkdirTemp("", "app")
	defer os.RemoveAll(dir)
	_ = os.Mkdir(filepath.Join(dir, ".ironflock"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".ironflock", "data-template.yml"), []byte(`data:
  tables:
    - tablename: t
      colums: []
`), 0o644)

	report, err := template.ValidateDir(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.OK())
	for _, f := range report.Findings() {
		fmt.Println(f.Line, f.Column, f.Severity, f.Path+":", f.Message)
	}
	// Output:
	// false
	// 3 7 error data.tables[0].columns: columns is required; every table declares at least the column tsp with dataType timestamp
	// 4 7 warning data.tables[0].colums: unknown key "colums" is ignored by the platform; allowed: tablename, description, private, maintainLatestFlagFor, chunkTimeInterval, dropAfter, columnstore, columnstoreAfter, downsample, columns
}

func ExamplePathKeys() {
	keys, _ := template.PathKeys(`args[0].sensor["a.b"]`)
	fmt.Printf("%q\n", keys)
	// Output: ["args" "0" "sensor" "a.b"]
}

func ExampleCheckCron() {
	fmt.Println(template.CheckCron("*/15 6-18 * * mon-fri"))
	fmt.Println(template.CheckCron("0 25 * * *"))
	// Output:
	// <nil>
	// cron hour field "25": 25 is out of range; allowed: 0 to 23
}

// CheckRowIDColumn tells whether a table of the app's data template can
// carry the row ids of an outbox (outbox.WithIDColumn).
func ExampleDataTemplate_CheckRowIDColumn() {
	tpl, _, err := template.ParseData([]byte(`
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: row_id, name: Row id, dataType: string}
        - {id: celsius, name: Temperature, dataType: numeric}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tpl.CheckRowIDColumn("readings", "row_id"))
	fmt.Println(tpl.CheckRowIDColumn("readings", "celsius"))
	// Output:
	// <nil>
	// template: no column fit for row ids: column "celsius" of table "readings" is numeric; row ids need a string column
}
