package wire

import (
	"strconv"
	"strings"
)

// RouterPath is the WebSocket path devices connect to (docs/wire.md §4).
const RouterPath = "/ws-ua-usr"

// DefaultRouterURL is used when no URL, endpoint or studio is configured.
const DefaultRouterURL = "wss://cbw.ironflock.com/ws-ua-usr"

// StudioRouters maps a studio URL (RESWARM_URL) to its router URL (docs/wire.md §4).
var StudioRouters = map[string]string{
	"https://studio.datapods.io":          "wss://cbw.datapods.io/ws-ua-usr",
	"https://studio.ironflock.dev":        "wss://cbw.ironflock.dev/ws-ua-usr",
	"https://studio.ironflock.com":        "wss://cbw.ironflock.com/ws-ua-usr",
	"https://studio.record-evolution.com": "wss://cbw.record-evolution.com/ws-ua-usr",
	"http://localhost:8085":               "ws://localhost:8080/ws-ua-usr",
	"http://localhost:8086":               "ws://localhost:8080/ws-ua-usr",
	"http://host.docker.internal:8086":    "ws://host.docker.internal:8080/ws-ua-usr",
}

// Realm returns the realm of an app's data backend: realm-<S>-<A>-<stage>,
// stage in lower case (docs/wire.md §5).
func Realm(swarm, app int, stage string) string {
	return "realm-" + strconv.Itoa(swarm) + "-" + strconv.Itoa(app) + "-" + strings.ToLower(stage)
}

func join(parts ...string) string { return strings.Join(parts, ".") }

func itoa(n int) string { return strconv.Itoa(n) }

// TableTopic is the raw write topic of a table: <S>.<A>.<t>.
func TableTopic(swarm, app int, table string) string { return join(itoa(swarm), itoa(app), table) }

// BulkTableTopic is the raw bulk write topic: bulk.<S>.<A>.<t>.
func BulkTableTopic(swarm, app int, table string) string {
	return join("bulk", itoa(swarm), itoa(app), table)
}

// AppendProc is the confirmed single-row write: append.<S>.<A>.<t>.
func AppendProc(swarm, app int, table string) string {
	return join("append", itoa(swarm), itoa(app), table)
}

// AppendBulkProc is the confirmed bulk write: appendBulk.<S>.<A>.<t>.
func AppendBulkProc(swarm, app int, table string) string {
	return join("appendBulk", itoa(swarm), itoa(app), table)
}

// HistoryProc reads a table or transform: history.transformed.<t>.
func HistoryProc(table string) string { return "history.transformed." + table }

// SeriesProc reads bucketed series: history.transformed.series.<t>.
func SeriesProc(table string) string { return "history.transformed.series." + table }

// RevealProc reveals secret columns: secret.reveal.<t>.
func RevealProc(table string) string { return "secret.reveal." + table }

// VerifyProc verifies a secret candidate: secret.verify.<t>.
func VerifyProc(table string) string { return "secret.verify." + table }

// TransformedTopic carries single accepted rows: transformed.<t>.
func TransformedTopic(table string) string { return "transformed." + table }

// TransformedBulkTopic carries accepted bulk inserts: transformed.bulk.<t>.
func TransformedBulkTopic(table string) string { return "transformed.bulk." + table }

// DeviceFunction is the URI of a device function:
// <S>.<deviceKey>.<A>.<STAGE>.<name>, STAGE upper case (docs/wire.md §7.9).
func DeviceFunction(swarm, deviceKey, app int, stage, name string) string {
	return join(itoa(swarm), itoa(deviceKey), itoa(app), strings.ToUpper(stage), name)
}

// ErrorLogsTable is the system table present on every data backend.
const ErrorLogsTable = "error-logs"

// Fixed procedure and topic names.
const (
	LocationProc      = "ironflock.location_service.update"
	AppAccessResolve  = "sys.appaccess.resolve"
	AppAccessList     = "sys.appaccess.list"
	SessionGetProc    = "wamp.session.get"
	FilesEventsTopic  = "files.events"
	FilesNamespaces   = "files.read.namespaces"
	FilesUsage        = "files.read.usage"
	FilesList         = "files.read.list"
	FilesStat         = "files.read.stat"
	FilesGet          = "files.read.get"
	FilesReadURL      = "files.read.url"
	FilesPut          = "files.write.put"
	FilesDelete       = "files.write.delete"
	FilesCopy         = "files.write.copy"
	FilesWriteURL     = "files.write.url"
	AuthMethodWAMPCRA = "wampcra"
)

// Device metadata keyword arguments added to writes (docs/wire.md §3).
const (
	KwSerialNumber = "DEVICE_SERIAL_NUMBER"
	KwDeviceKey    = "DEVICE_KEY"
	KwDeviceName   = "DEVICE_NAME"
)

// WAMP option names the platform relies on.
const (
	OptAcknowledge     = "acknowledge"
	OptForceReregister = "force_reregister"
	OptReceiveProgress = "receive_progress"
	OptProgress        = "progress"
	OptMatch           = "match"
	OptTimeout         = "timeout"
	OptDiscloseMe      = "disclose_me"
	OptExcludeAuthRole = "exclude_authrole"
	OptExcludeMe       = "exclude_me"
	MatchPrefix        = "prefix"
	MatchWildcard      = "wildcard"
	MatchExact         = "exact"
)

// OptTraceParent and OptTraceState carry a W3C trace context (traceparent,
// tracestate) in the options of PUBLISH and CALL and the details of EVENT
// and INVOCATION (docs/wire.md §12): WAMP leaves keys beginning with "_"
// to implementations, and peers ignore unknown ones.
const (
	OptTraceParent = "_traceparent"
	OptTraceState  = "_tracestate"
)

// Roles the platform's authenticator hands out.
const (
	RoleApp       = "app"
	RoleAppReader = "app_reader"
)

// WebSocket subprotocols of WAMP, in the order the platform prefers them.
const (
	SubprotocolMsgpack = "wamp.2.msgpack"
	SubprotocolJSON    = "wamp.2.json"
)
