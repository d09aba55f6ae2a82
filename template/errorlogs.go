package template

// ErrorLogsTable returns the system table "error-logs" that every data
// backend has (package template, docs/wire.md §7.4): tsp (timestamp) and the
// strings msg, user_message, source ("app" or "system") and level ("error",
// "warn", "info" or "debug"). It is private to cross-app readers. Besides
// device_key and authid the backend adds an auto-increment id; see
// Table.ImplicitColumns.
func ErrorLogsTable() Table {
	col := func(id, name, desc string, typ DataType) Column {
		return Column{ID: id, Name: name, Description: desc, Type: typ, Path: DefaultPath(id)}
	}
	return Table{
		Name:        ErrorLogsName,
		Description: "errors reported by the app (source app) and by the platform (source system)",
		Private:     true,
		Columns: []Column{
			col("tsp", "Timestamp", "when the error happened", TypeTimestamp),
			col("msg", "Message", "the error text, with details", TypeString),
			col("user_message", "User message", "the text shown to users; defaults to msg", TypeString),
			col("source", "Source", `"app" or "system"`, TypeString),
			col("level", "Level", `"error", "warn", "info" or "debug"`, TypeString),
		},
	}
}
