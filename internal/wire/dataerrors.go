package wire

// DataErrorsPrefix starts the reserved, subscribe-only topic family on
// which the data backend reports the writes it refused (docs/wire.md
// §7.8): databackend.errors.<t>. Apps subscribe (one table, or the prefix
// for all); nobody but the data backend publishes there.
const DataErrorsPrefix = "databackend.errors."

// DataErrorsTopic carries the refused writes to a table:
// databackend.errors.<t>.
func DataErrorsTopic(table string) string { return DataErrorsPrefix + table }

// The fields of a data error report (args[0] of an event on
// databackend.errors.<t>), and the operations it names.
const (
	DataErrorTable     = "tablename"
	DataErrorOperation = "operation"
	DataErrorURI       = "uri"
	DataErrorMessage   = "message"
	DataErrorTsp       = "tsp"
	DataErrorDeviceKey = "device_key"
	DataErrorAuthID    = "authid"
	DataErrorRows      = "rows"

	OpAppend      = "append"
	OpAppendBulk  = "appendBulk"
	OpPublish     = "publish"
	OpPublishBulk = "publishBulk"
)
