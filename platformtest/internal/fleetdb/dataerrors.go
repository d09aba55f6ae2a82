// This file holds the data backend's reports of refused writes
// (docs/wire.md §7.8). It publishes:
//
//	databackend.errors.<t>  args [report] after a refused append, bulk
//	                        append, publication or bulk publication to
//	                        table t (error-logs included)
//
// report = {tablename, operation (append, appendBulk, publish,
// publishBulk), uri (the refusal's error URI), message (its text), tsp
// (when, ISO 8601), device_key, authid, rows (in the refused message)}.
// It never holds a value of the refused rows: the message is the
// refusal's own text, and a secret column's value that would appear in it
// is replaced by __secret__. Reports are published with exclude_authrole
// ["app_reader"]: cross-app readers never see them. A cancelled call is
// not a refusal and is not reported.

package fleetdb

import (
	"strings"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// writeOp names the operation of a write for its report.
func writeOp(publish, bulk bool) string {
	switch {
	case publish && bulk:
		return wire.OpPublishBulk
	case publish:
		return wire.OpPublish
	case bulk:
		return wire.OpAppendBulk
	}
	return wire.OpAppend
}

// reportRefusal publishes the report of a refused write of msg to t.
func (b *backend) reportRefusal(h *realm.Host, t *table, msg writeMsg, op string, bulk bool, e *fleetError) {
	if h == nil || h.Session == nil || e.uri == wire.ErrCanceled {
		return
	}
	rows := int64(1)
	if bulk {
		rows = 0
		if len(msg.args) > 0 {
			if batch, ok := msg.args[0].([]any); ok {
				rows = int64(len(batch))
			}
		}
	}
	dk := deviceKeyOf(msg)
	report := map[string]any{
		wire.DataErrorTable:     t.name,
		wire.DataErrorOperation: op,
		wire.DataErrorURI:       e.uri,
		wire.DataErrorMessage:   t.scrubSecrets(refusalMessage(e), msg, bulk),
		wire.DataErrorTsp:       store.ISOTime(h.Clock.Now().UnixMilli()),
		wire.DataErrorDeviceKey: dk,
		wire.DataErrorAuthID:    authIDOf(msg.details),
		wire.DataErrorRows:      rows,
	}
	opts := sharedFeedOptions(true)
	if err := h.Publish(wire.DataErrorsTopic(t.name), opts, wamp.List{report}, nil); err != nil {
		h.Log.Debug("fleetdb: refusal not reported", "table", t.name, "err", err)
	}
}

// refusalMessage is the text of a refusal for its report: the refusal's
// own message, or what an empty one means.
func refusalMessage(e *fleetError) string {
	switch {
	case e.missingTsp:
		return "a row has no tsp value"
	case e.cause != nil:
		return "storage failed: " + e.cause.Error()
	case len(e.args) == 0:
		return e.uri
	}
	switch x := e.args[0].(type) {
	case string:
		return x
	case map[string]any:
		if len(x) == 0 {
			return "refused without detail (a bulk payload must be a non-empty list of rows)"
		}
	}
	return store.JSONText(e.args[0])
}

// scrubSecrets replaces in text every non-empty value the message carried
// for a secret column of t with the secret placeholder, so that a report
// never shows one, whatever a refusal's text holds.
func (t *table) scrubSecrets(text string, msg writeMsg, bulk bool) string {
	var secrets []int
	for i := range t.cols {
		if t.cols[i].secret && !t.cols[i].implicit {
			secrets = append(secrets, i)
		}
	}
	if len(secrets) == 0 {
		return text
	}
	msgs := []writeMsg{msg}
	if bulk {
		msgs = nil
		if len(msg.args) > 0 {
			batch, _ := msg.args[0].([]any)
			for _, r := range batch {
				msgs = append(msgs, writeMsg{args: append([]any{r}, msg.args[1:]...), kwargs: msg.kwargs, details: msg.details})
			}
		}
	}
	for _, m := range msgs {
		for _, i := range secrets {
			v, ok := m.lookup(t.cols[i].path)
			if !ok || v == nil {
				continue
			}
			s, isText := v.(string)
			if !isText {
				s = store.JSONText(v)
			}
			if s != "" && s != secretPlaceholder {
				text = strings.ReplaceAll(text, s, secretPlaceholder)
			}
		}
	}
	return text
}
