package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/google/go-cmp/cmp"
)

// badCase is a request the API must refuse without changing anything.
type badCase struct {
	name   string
	method string
	path   string // relative to /v1/platform unless it starts with /v1/
	token  string
	body   string
	status int
	code   string
}

func badCases(w *restWorld) []badCase {
	f := fmt.Sprintf
	const (
		A = worldtest.AliceToken
		V = worldtest.VicToken
		B = worldtest.BobToken
	)
	huge := `{"name":"x","description":"` + strings.Repeat("a", rest.MaxBodyBytes+64<<10) + `"}`
	hugeDevices := "[" + strings.Repeat(`{"name":"a-device-with-a-long-name"},`, rest.MaxBodyBytes/36+2000) + `{"name":"z"}]`
	tooMany := "[" + strings.Repeat(`{"name":"n"},`, 0)
	for i := range rest.MaxBulk + 1 {
		if i > 0 {
			tooMany += ","
		}
		tooMany += f(`{"name":"n%d"}`, i)
	}
	tooMany += "]"
	rel := func(app int) string { return f("/apps/%d/releases", app) }
	return []badCase{
		// 401: no or unknown token, whatever the route
		{"no token", "GET", "/devices", "", "", 401, wire.CodeUnauthenticated},
		{"unknown token", "GET", "/devices", "wrong", "", 401, wire.CodeUnauthenticated},
		{"no token on a write", "POST", "/apps", "", `{"name":"x"}`, 401, wire.CodeUnauthenticated},
		{"no token on an unknown route", "GET", "/nope", "", "", 401, wire.CodeUnauthenticated},
		{"no token on the alias", "GET", "/v1/ironflock/devices", "", "", 401, wire.CodeUnauthenticated},
		{"unknown token on a delete", "DELETE", "/swarms/1/devices/1", "alice", "", 401, wire.CodeUnauthenticated},

		// 404: unknown routes and paths
		{"unknown route", "GET", "/nope", A, "", 404, wire.CodeNotFound},
		{"trailing slash devices", "GET", "/devices/", A, "", 404, wire.CodeNotFound},
		{"trailing slash apps", "GET", "/apps/", A, "", 404, wire.CodeNotFound},
		{"trailing slash device", "GET", "/devices/1/", A, "", 404, wire.CodeNotFound},
		{"prefix only", "GET", "/v1/platform", A, "", 404, wire.CodeNotFound},
		{"prefix with slash", "GET", "/v1/platform/", A, "", 404, wire.CodeNotFound},
		{"alias unknown route", "GET", "/v1/ironflock/nope", A, "", 404, wire.CodeNotFound},
		{"device key not a number", "GET", "/devices/abc", A, "", 404, wire.CodeNotFound},
		{"device key leading zeros", "GET", "/devices/001", A, "", 404, wire.CodeNotFound},
		{"device key zero", "GET", "/devices/0", A, "", 404, wire.CodeNotFound},
		{"device key negative", "GET", "/devices/-1", A, "", 404, wire.CodeNotFound},
		{"device key overflow", "GET", "/devices/99999999999999999999", A, "", 404, wire.CodeNotFound},
		{"device key with plus", "GET", "/devices/+1", A, "", 404, wire.CodeNotFound},
		{"unknown device", "GET", "/devices/999", A, "", 404, wire.CodeNotFound},
		{"foreign device", "GET", "/devices/3", A, "", 404, wire.CodeNotFound},
		{"foreign device apps", "GET", "/devices/3/apps", A, "", 404, wire.CodeNotFound},
		{"foreign device on the alias", "GET", "/v1/ironflock/devices/3", A, "", 404, wire.CodeNotFound},
		{"unknown app", "GET", "/apps/999", A, "", 404, wire.CodeNotFound},
		{"someone's unreleased app", "GET", f("/apps/%d", w.secret), A, "", 404, wire.CodeNotFound},
		{"foreign project groups", "GET", "/swarms/2/groups", A, "", 404, wire.CodeNotFound},
		{"unknown project groups", "GET", "/swarms/99/groups", A, "", 404, wire.CodeNotFound},
		{"group of another project", "GET", "/swarms/1/groups/2", A, "", 404, wire.CodeNotFound},
		{"unknown group", "GET", "/swarms/1/groups/99", A, "", 404, wire.CodeNotFound},
		{"unknown release", "GET", rel(w.mine) + "/999?swarm_key=1", A, "", 404, wire.CodeNotFound},
		{"release of another app", "GET", f("%s/%d?swarm_key=1", rel(w.seeded), w.rel1), A, "", 404, wire.CodeNotFound},
		{"release key cancel on GET", "GET", rel(w.mine) + "/cancel?swarm_key=1", A, "", 404, wire.CodeNotFound},
		{"releases in a foreign project", "GET", rel(w.mine) + "?swarm_key=2", A, "", 404, wire.CodeNotFound},
		{"releases in an unknown project", "GET", rel(w.mine) + "?swarm_key=99", A, "", 404, wire.CodeNotFound},
		{"building release seen by a non-owner", "GET", f("%s/%d?swarm_key=2", rel(w.mine), w.building), B, "", 404, wire.CodeNotFound},
		{"releases of someone's unreleased app", "GET", rel(w.secret) + "?swarm_key=1", A, "", 404, wire.CodeNotFound},
		{"delete device of another project", "DELETE", "/swarms/1/devices/3", A, "", 404, wire.CodeNotFound},
		{"delete device in a foreign project", "DELETE", "/swarms/2/devices/3", A, "", 404, wire.CodeNotFound},
		{"delete unknown device", "DELETE", "/swarms/1/devices/999", A, "", 404, wire.CodeNotFound},
		{"bulk delete with an unknown id", "DELETE", "/swarms/1/devices?ids=1,999", A, "", 404, wire.CodeNotFound},
		{"bulk delete with a foreign id", "DELETE", "/swarms/1/devices?ids=2,3", A, "", 404, wire.CodeNotFound},
		{"install on a foreign device", "POST", "/devices/3/apps", A, f(`{"app_key":%d}`, w.mine), 404, wire.CodeNotFound},
		{"install an unknown app", "POST", "/devices/2/apps", A, `{"app_key":999}`, 404, wire.CodeNotFound},
		{"install someone's unreleased app", "POST", "/devices/2/apps", A, f(`{"app_key":%d}`, w.secret), 404, wire.CodeNotFound},
		{"install an unknown release", "POST", "/devices/2/apps", A, f(`{"app_key":%d,"release_key":999}`, w.mine), 404, wire.CodeNotFound},
		{"install a release of another app", "POST", "/devices/2/apps", A, f(`{"app_key":%d,"release_key":%d}`, w.mine, w.otherRel), 404, wire.CodeNotFound},
		{"state of an app not installed", "PUT", "/devices/1/apps/999", A, `{"target_state":"STOPPED"}`, 404, wire.CodeNotFound},
		{"state in the wrong stage", "PUT", f("/devices/1/apps/%d?stage=PROD", w.seeded), A, `{"target_state":"STOPPED"}`, 404, wire.CodeNotFound},
		{"state with a release of another app", "PUT", f("/devices/1/apps/%d", w.seeded), A, f(`{"target_state":"RUNNING","release_key":%d}`, w.rel1), 404, wire.CodeNotFound},
		{"uninstall an app not installed", "DELETE", f("/devices/2/apps/%d", w.seeded), A, "", 404, wire.CodeNotFound},
		{"add a foreign device to a group", "PUT", "/swarms/1/groups/1/devices/3", A, "", 404, wire.CodeNotFound},
		{"remove a device that is not a member", "DELETE", "/swarms/1/groups/1/devices/2", A, "", 404, wire.CodeNotFound},
		{"update an app not on the group", "PUT", "/swarms/1/groups/1/apps/999", A, `{"target_state":"STOPPED"}`, 404, wire.CodeNotFound},
		{"remove an app not on the group", "DELETE", f("/swarms/1/groups/1/apps/%d", w.seeded), A, "", 404, wire.CodeNotFound},
		{"install on an unknown group", "POST", "/swarms/1/groups/99/apps", A, f(`{"app_key":%d}`, w.mine), 404, wire.CodeNotFound},
		{"install on a foreign group", "POST", "/swarms/2/groups/2/apps", A, f(`{"app_key":%d}`, w.mine), 404, wire.CodeNotFound},
		{"release of an unknown app", "POST", rel(999), A, `{"version":"1.0.0"}`, 404, wire.CodeNotFound},
		{"cancel on someone's unreleased app", "POST", rel(w.secret) + "/cancel", A, "", 404, wire.CodeNotFound},
		{"delete someone's unreleased app", "DELETE", f("/apps/%d", w.secret), A, "", 404, wire.CodeNotFound},
		{"delete an unknown release", "DELETE", rel(w.mine) + "/999", A, "", 404, wire.CodeNotFound},

		// 405: known paths, other methods
		{"PUT devices", "PUT", "/devices", A, "", 405, wire.CodeMethodNotAllowed},
		{"POST a device", "POST", "/devices/1", A, "", 405, wire.CodeMethodNotAllowed},
		{"PATCH an app", "PATCH", f("/apps/%d", w.mine), A, `{"name":"x"}`, 405, wire.CodeMethodNotAllowed},
		{"DELETE apps", "DELETE", "/apps", A, "", 405, wire.CodeMethodNotAllowed},
		{"GET project devices", "GET", "/swarms/1/devices", A, "", 405, wire.CodeMethodNotAllowed},
		{"POST groups", "POST", "/swarms/1/groups", A, `{"name":"g"}`, 405, wire.CodeMethodNotAllowed},
		{"PUT cancel", "PUT", rel(w.mine) + "/cancel", A, "", 405, wire.CodeMethodNotAllowed},
		{"POST the document", "POST", "/openapi.json", "", "", 405, wire.CodeMethodNotAllowed},
		{"OPTIONS devices", "OPTIONS", "/devices", A, "", 405, wire.CodeMethodNotAllowed},
		{"GET a group member", "GET", "/swarms/1/groups/1/devices/1", A, "", 405, wire.CodeMethodNotAllowed},

		// 403: visible, but the user may not change it
		{"viewer creates a device", "POST", "/swarms/1/devices", V, `{"name":"x"}`, 403, wire.CodeForbidden},
		{"viewer deletes a device", "DELETE", "/swarms/1/devices/1", V, "", 403, wire.CodeForbidden},
		{"viewer bulk deletes", "DELETE", "/swarms/1/devices?ids=1", V, "", 403, wire.CodeForbidden},
		{"viewer installs", "POST", "/devices/2/apps", V, f(`{"app_key":%d}`, w.mine), 403, wire.CodeForbidden},
		{"viewer sets a state", "PUT", f("/devices/1/apps/%d", w.seeded), V, `{"target_state":"STOPPED"}`, 403, wire.CodeForbidden},
		{"viewer uninstalls", "DELETE", f("/devices/1/apps/%d", w.seeded), V, "", 403, wire.CodeForbidden},
		{"viewer adds a member", "PUT", "/swarms/1/groups/1/devices/2", V, "", 403, wire.CodeForbidden},
		{"viewer removes a member", "DELETE", "/swarms/1/groups/1/devices/1", V, "", 403, wire.CodeForbidden},
		{"viewer installs on a group", "POST", "/swarms/1/groups/1/apps", V, f(`{"app_key":%d}`, w.other), 403, wire.CodeForbidden},
		{"viewer updates a group app", "PUT", f("/swarms/1/groups/1/apps/%d", w.mine), V, `{"target_state":"STOPPED"}`, 403, wire.CodeForbidden},
		{"viewer removes a group app", "DELETE", f("/swarms/1/groups/1/apps/%d", w.mine), V, "", 403, wire.CodeForbidden},
		{"viewer sends bad JSON", "POST", "/swarms/1/devices", V, `{`, 403, wire.CodeForbidden},
		{"viewer on the alias", "POST", "/v1/ironflock/swarms/1/devices", V, `{"name":"x"}`, 403, wire.CodeForbidden},
		{"non-owner deletes an app", "DELETE", f("/apps/%d", w.mine), B, "", 403, wire.CodeForbidden},
		{"non-owner creates a release", "POST", rel(w.mine), B, `{"version":"9.0.0"}`, 403, wire.CodeForbidden},
		{"non-owner cancels", "POST", rel(w.mine) + "/cancel", B, "", 403, wire.CodeForbidden},
		{"non-owner deletes a release", "DELETE", f("%s/%d", rel(w.mine), w.rel1), B, "", 403, wire.CodeForbidden},
		{"delete an app without owner", "DELETE", f("/apps/%d", w.seeded), A, "", 403, wire.CodeForbidden},
		{"release of an app without owner", "POST", rel(w.seeded), A, `{"version":"2.0.0"}`, 403, wire.CodeForbidden},

		// 400: malformed JSON or query
		{"truncated JSON", "POST", "/apps", A, `{`, 400, wire.CodeInvalidJSON},
		{"empty body", "POST", "/apps", A, "", 400, wire.CodeInvalidJSON},
		{"blank body", "POST", "/apps", A, "  \n ", 400, wire.CodeInvalidJSON},
		{"two JSON values", "POST", "/apps", A, `{"name":"x"} {"name":"y"}`, 400, wire.CodeInvalidJSON},
		{"unquoted key", "POST", rel(w.other), A, `{version:"3.0.0"}`, 400, wire.CodeInvalidJSON},
		{"trailing comma in an array", "POST", "/swarms/1/devices", A, `[{"name":"a"},]`, 400, wire.CodeInvalidJSON},
		{"trailing comma in an object", "POST", "/devices/2/apps", A, f(`{"app_key":%d,}`, w.other), 400, wire.CodeInvalidJSON},
		{"bare word", "POST", "/swarms/1/groups/1/apps", A, `nope`, 400, wire.CodeInvalidJSON},
		{"open array", "PUT", f("/swarms/1/groups/1/apps/%d", w.mine), A, `[`, 400, wire.CodeInvalidJSON},
		{"single quotes", "PUT", f("/devices/1/apps/%d", w.seeded), A, `{'target_state':'STOPPED'}`, 400, wire.CodeInvalidJSON},
		{"ids with an empty element and a word", "DELETE", "/swarms/1/devices?ids=1,,x", A, "", 400, wire.CodeInvalidQuery},
		{"ids empty", "DELETE", "/swarms/1/devices?ids=", A, "", 400, wire.CodeInvalidQuery},
		{"ids missing", "DELETE", "/swarms/1/devices", A, "", 400, wire.CodeInvalidQuery},
		{"ids with a word", "DELETE", "/swarms/1/devices?ids=1,abc", A, "", 400, wire.CodeInvalidQuery},
		{"ids with a leading comma", "DELETE", "/swarms/1/devices?ids=,1", A, "", 400, wire.CodeInvalidQuery},
		{"ids with a trailing comma", "DELETE", "/swarms/1/devices?ids=1,2,", A, "", 400, wire.CodeInvalidQuery},
		{"ids with leading zeros", "DELETE", "/swarms/1/devices?ids=01", A, "", 400, wire.CodeInvalidQuery},
		{"ids given twice", "DELETE", "/swarms/1/devices?ids=1&ids=2", A, "", 400, wire.CodeInvalidQuery},
		{"ids with spaces", "DELETE", "/swarms/1/devices?ids=1,%202", A, "", 400, wire.CodeInvalidQuery},
		{"ids separated by semicolons", "DELETE", "/swarms/1/devices?ids=1;2", A, "", 400, wire.CodeInvalidQuery},
		{"malformed percent encoding", "GET", rel(w.mine) + "?swarm_key=1&x=%zz", A, "", 400, wire.CodeInvalidQuery},

		// 413: huge bodies
		{"huge app", "POST", "/apps", A, huge, 413, wire.CodeBodyTooLarge},
		{"huge device array", "POST", "/swarms/1/devices", A, hugeDevices, 413, wire.CodeBodyTooLarge},
		{"huge template", "POST", rel(w.other), A, `{"version":"3.0.0","data_template":"` + strings.Repeat("x", rest.MaxBodyBytes) + `"}`, 413, wire.CodeBodyTooLarge},

		// 422: valid JSON or query breaking a rule
		{"app without name", "POST", "/apps", A, `{}`, 422, wire.CodeValidation},
		{"app name a number", "POST", "/apps", A, `{"name":5}`, 422, wire.CodeValidation},
		{"app name null", "POST", "/apps", A, `{"name":null}`, 422, wire.CodeValidation},
		{"app name with a space", "POST", "/apps", A, `{"name":"bad name"}`, 422, wire.CodeValidation},
		{"app name too long", "POST", "/apps", A, f(`{"name":%q}`, strings.Repeat("a", 64)), 422, wire.CodeValidation},
		{"app unknown field", "POST", "/apps", A, `{"name":"x","extra":1}`, 422, wire.CodeValidation},
		{"app field in another case", "POST", "/apps", A, `{"NAME":"x"}`, 422, wire.CodeValidation},
		{"app body an array", "POST", "/apps", A, `[]`, 422, wire.CodeValidation},
		{"app body null", "POST", "/apps", A, `null`, 422, wire.CodeValidation},
		{"app body a string", "POST", "/apps", A, `"x"`, 422, wire.CodeValidation},
		{"app description a number", "POST", "/apps", A, `{"name":"ok","description":3}`, 422, wire.CodeValidation},
		{"app description too long", "POST", "/apps", A, f(`{"name":"ok","description":%q}`, strings.Repeat("d", 1001)), 422, wire.CodeValidation},
		{"no devices", "POST", "/swarms/1/devices", A, `[]`, 422, wire.CodeValidation},
		{"device without name", "POST", "/swarms/1/devices", A, `{}`, 422, wire.CodeValidation},
		{"device name empty", "POST", "/swarms/1/devices", A, `{"name":""}`, 422, wire.CodeValidation},
		{"device name padded", "POST", "/swarms/1/devices", A, `{"name":" padded"}`, 422, wire.CodeValidation},
		{"device name with NUL", "POST", "/swarms/1/devices", A, `{"name":"a\u0000b"}`, 422, wire.CodeValidation},
		{"device name 64 bytes", "POST", "/swarms/1/devices", A, f(`{"name":%q}`, strings.Repeat("n", 64)), 422, wire.CodeValidation},
		{"device name 32 two-byte characters", "POST", "/swarms/1/devices", A, f(`{"name":%q}`, strings.Repeat("é", 32)), 422, wire.CodeValidation},
		{"device names twice in a request", "POST", "/swarms/1/devices", A, `[{"name":"a"},{"name":"a"}]`, 422, wire.CodeValidation},
		{"device element not an object", "POST", "/swarms/1/devices", A, `[{"name":"fresh"},5]`, 422, wire.CodeValidation},
		{"device unknown field", "POST", "/swarms/1/devices", A, `{"name":"x","colour":"red"}`, 422, wire.CodeValidation},
		{"device serial not accepted", "POST", "/swarms/1/devices", A, `{"name":"x","serial_number":"abc"}`, 422, wire.CodeValidation},
		{"device architecture too long", "POST", "/swarms/1/devices", A, f(`{"name":"x","architecture":%q}`, strings.Repeat("a", 64)), 422, wire.CodeValidation},
		{"device architecture a bool", "POST", "/swarms/1/devices", A, `{"name":"x","architecture":true}`, 422, wire.CodeValidation},
		{"device body a number", "POST", "/swarms/1/devices", A, `5`, 422, wire.CodeValidation},
		{"too many devices", "POST", "/swarms/1/devices", A, tooMany, 422, wire.CodeValidation},
		{"install without app_key", "POST", "/devices/2/apps", A, `{}`, 422, wire.CodeValidation},
		{"install app_key a string", "POST", "/devices/2/apps", A, `{"app_key":"1"}`, 422, wire.CodeValidation},
		{"install app_key a fraction", "POST", "/devices/2/apps", A, `{"app_key":1.5}`, 422, wire.CodeValidation},
		{"install app_key zero", "POST", "/devices/2/apps", A, `{"app_key":0}`, 422, wire.CodeValidation},
		{"install app_key negative", "POST", "/devices/2/apps", A, `{"app_key":-4}`, 422, wire.CodeValidation},
		{"install app_key exponent", "POST", "/devices/2/apps", A, `{"app_key":1e3}`, 422, wire.CodeValidation},
		{"install app_key huge", "POST", "/devices/2/apps", A, `{"app_key":123456789012345678901234567890}`, 422, wire.CodeValidation},
		{"install stage lower case", "POST", "/devices/2/apps", A, f(`{"app_key":%d,"stage":"dev"}`, w.other), 422, wire.CodeValidation},
		{"install stage unknown", "POST", "/devices/2/apps", A, f(`{"app_key":%d,"stage":"TEST"}`, w.other), 422, wire.CodeValidation},
		{"install release_key a string", "POST", "/devices/2/apps", A, f(`{"app_key":%d,"release_key":"x"}`, w.other), 422, wire.CodeValidation},
		{"install target_state not accepted", "POST", "/devices/2/apps", A, f(`{"app_key":%d,"target_state":"RUNNING"}`, w.other), 422, wire.CodeValidation},
		{"state without target", "PUT", f("/devices/1/apps/%d", w.seeded), A, `{}`, 422, wire.CodeValidation},
		{"state FAILED", "PUT", f("/devices/1/apps/%d", w.seeded), A, `{"target_state":"FAILED"}`, 422, wire.CodeValidation},
		{"state lower case", "PUT", f("/devices/1/apps/%d", w.seeded), A, `{"target_state":"running"}`, 422, wire.CodeValidation},
		{"state unknown field", "PUT", f("/devices/1/apps/%d", w.seeded), A, `{"target_state":"RUNNING","x":1}`, 422, wire.CodeValidation},
		{"state with an unknown stage", "PUT", f("/devices/1/apps/%d?stage=QA", w.seeded), A, `{"target_state":"STOPPED"}`, 422, wire.CodeValidation},
		{"timeout=0", "POST", rel(w.other) + "?timeout=0", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"timeout=1801", "POST", rel(w.other) + "?timeout=1801", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"timeout=0.5", "POST", rel(w.other) + "?timeout=0.5", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"timeout a word", "POST", rel(w.other) + "?timeout=abc", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"timeout negative", "POST", rel(w.other) + "?timeout=-1", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"timeout exponent", "POST", rel(w.other) + "?timeout=1e3", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"timeout NaN", "POST", rel(w.other) + "?timeout=NaN", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"timeout empty", "POST", rel(w.other) + "?timeout=", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"timeout twice", "POST", rel(w.other) + "?timeout=5&timeout=6", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"wait=yes", "POST", rel(w.other) + "?wait=yes", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"wait=1", "POST", rel(w.other) + "?wait=1", A, `{"version":"3.0.0"}`, 422, wire.CodeValidation},
		{"release without version", "POST", rel(w.other), A, `{}`, 422, wire.CodeValidation},
		{"version not semver", "POST", rel(w.other), A, `{"version":"1.0"}`, 422, wire.CodeValidation},
		{"version with a v", "POST", rel(w.other), A, `{"version":"v1.0.0"}`, 422, wire.CodeValidation},
		{"version a number", "POST", rel(w.other), A, `{"version":1}`, 422, wire.CodeValidation},
		{"data_template a number", "POST", rel(w.other), A, `{"version":"3.0.0","data_template":5}`, 422, wire.CodeValidation},
		{"release unknown field", "POST", rel(w.other), A, `{"version":"3.0.0","notes":"x"}`, 422, wire.CodeValidation},
		{"releases without swarm_key", "GET", rel(w.mine), A, "", 422, wire.CodeValidation},
		{"releases swarm_key a word", "GET", rel(w.mine) + "?swarm_key=abc", A, "", 422, wire.CodeValidation},
		{"releases swarm_key zero", "GET", rel(w.mine) + "?swarm_key=0", A, "", 422, wire.CodeValidation},
		{"releases swarm_key empty", "GET", rel(w.mine) + "?swarm_key=", A, "", 422, wire.CodeValidation},
		{"release without swarm_key", "GET", f("%s/%d", rel(w.mine), w.rel1), A, "", 422, wire.CodeValidation},
		{"group install without app_key", "POST", "/swarms/1/groups/1/apps", A, `{}`, 422, wire.CodeValidation},
		{"group install stage lower case", "POST", "/swarms/1/groups/1/apps", A, f(`{"app_key":%d,"stage":"prod"}`, w.other), 422, wire.CodeValidation},
		{"group install unknown field", "POST", "/swarms/1/groups/1/apps", A, f(`{"app_key":%d,"target_state":"RUNNING"}`, w.other), 422, wire.CodeValidation},
		{"group update with nothing", "PUT", f("/swarms/1/groups/1/apps/%d", w.mine), A, `{}`, 422, wire.CodeValidation},
		{"group update with nulls only", "PUT", f("/swarms/1/groups/1/apps/%d", w.mine), A, `{"release_key":null,"target_state":null}`, 422, wire.CodeValidation},
		{"group update FAILED", "PUT", f("/swarms/1/groups/1/apps/%d", w.mine), A, `{"target_state":"FAILED"}`, 422, wire.CodeValidation},
		{"group update release zero", "PUT", f("/swarms/1/groups/1/apps/%d", w.mine), A, `{"release_key":0}`, 422, wire.CodeValidation},

		// 409: the state does not allow it
		{"app name taken", "POST", "/apps", A, `{"name":"mine"}`, 409, wire.CodeAlreadyExists},
		{"app name taken in another case", "POST", "/apps", A, `{"name":"MINE"}`, 409, wire.CodeAlreadyExists},
		{"device name taken", "POST", "/swarms/1/devices", A, `{"name":"d1"}`, 409, wire.CodeAlreadyExists},
		{"device name taken in a batch", "POST", "/swarms/1/devices", A, `[{"name":"fresh"},{"name":"d2"}]`, 409, wire.CodeAlreadyExists},
		{"app already on the device", "POST", "/devices/1/apps", A, f(`{"app_key":%d}`, w.seeded), 409, wire.CodeAlreadyInstalled},
		{"app inherited already", "POST", "/devices/1/apps", A, f(`{"app_key":%d}`, w.mine), 409, wire.CodeAlreadyInstalled},
		{"install an unreleased app", "POST", "/devices/2/apps", A, f(`{"app_key":%d}`, w.draft), 409, wire.CodeNotReleased},
		{"install a building release", "POST", "/devices/2/apps", A, f(`{"app_key":%d,"release_key":%d}`, w.mine, w.building), 409, wire.CodeReleaseNotReady},
		{"second build", "POST", rel(w.mine), A, `{"version":"3.0.0"}`, 409, wire.CodeBuildInProgress},
		{"version taken", "POST", rel(w.other), A, `{"version":"1.0.0"}`, 409, wire.CodeAlreadyExists},
		{"cancel with no build", "POST", rel(w.other) + "/cancel", A, "", 409, wire.CodeNoBuildInProgress},
		{"delete a building release", "DELETE", f("%s/%d", rel(w.mine), w.building), A, "", 409, wire.CodeBuildInProgress},
		{"delete a release in use", "DELETE", f("%s/%d", rel(w.mine), w.rel1), A, "", 409, wire.CodeInUse},
		{"delete an app in use", "DELETE", f("/apps/%d", w.mine), A, "", 409, wire.CodeInUse},
		{"uninstall an inherited app", "DELETE", f("/devices/1/apps/%d", w.mine), A, "", 409, wire.CodeInherited},
		{"app already on the group", "POST", "/swarms/1/groups/1/apps", A, f(`{"app_key":%d}`, w.mine), 409, wire.CodeAlreadyInstalled},
		{"group update to a building release", "PUT", f("/swarms/1/groups/1/apps/%d", w.mine), A, f(`{"release_key":%d}`, w.building), 409, wire.CodeReleaseNotReady},
		{"group install of an unreleased app", "POST", "/swarms/1/groups/1/apps", A, f(`{"app_key":%d}`, w.draft), 409, wire.CodeNotReleased},
	}
}

func TestRESTRefusals(t *testing.T) {
	w := newRESTWorld(t)
	conf := newConformance(t, w.p)
	before := snapshotREST(w.p)
	cases := badCases(w)
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := worldtest.RESTDo(t, w.p, tc.method, tc.path, tc.token, tc.body)
			worldtest.CheckErrorAnswer(t, a, tc.status, tc.code)
			c := *conf
			c.t = t
			c.validate(tc.method, tc.path, tc.token, tc.body, a) // the answer is documented
			if a.Status >= 500 {
				t.Errorf("server error %d", a.Status)
			}
			if tc.status == http.StatusMethodNotAllowed && a.Header.Get("Allow") == "" {
				t.Errorf("405 without Allow")
			}
			if tc.status == http.StatusUnauthorized && a.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
			if diff := cmp.Diff(before, snapshotREST(w.p)); diff != "" {
				t.Errorf("state changed (-before +after):\n%s", diff)
			}
		})
	}
	t.Logf("%d refusals checked", len(cases))
}

// TestTakenNamesNameTheFirstDevice: a batch of new devices with several
// names taken in the project is refused naming the taken device of lowest
// key, whatever the order of the batch, and one taken in another project
// does not count.
func TestTakenNamesNameTheFirstDevice(t *testing.T) {
	w := newRESTWorld(t)
	for _, body := range []string{`[{"name":"d3"},{"name":"d2"},{"name":"d1"}]`, `[{"name":"d1"},{"name":"d2"}]`} {
		a := worldtest.RESTDo(t, w.p, "POST", "/swarms/1/devices", worldtest.AliceToken, body)
		worldtest.CheckErrorAnswer(t, a, http.StatusConflict, wire.CodeAlreadyExists)
		if want := `device \"d1\" exists in project 1 (device 1)`; !strings.Contains(string(a.Body), want) {
			t.Errorf("%s: %s, want it to name %s", body, a.Body, want)
		}
	}
	worldtest.RESTOK(t, w.p, "POST", "/swarms/1/devices", worldtest.AliceToken, `[{"name":"d3"}]`, 201, nil)
}
