// This file holds ReportError and its options: rows of the error-logs
// table.

package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Levels of ReportError.
const (
	LevelError = "error"
	LevelWarn  = "warn"
	LevelInfo  = "info"
	LevelDebug = "debug"
)

// ReportOption configures ReportError.
type ReportOption func(*reportSettings)

type reportSettings struct {
	level       string
	append      bool
	tsp         time.Time
	userMessage *string
}

// ErrorLevel sets the level: LevelError (default), LevelWarn, LevelInfo or
// LevelDebug.
func ErrorLevel(level string) ReportOption { return func(s *reportSettings) { s.level = level } }

// AppendReport writes the row by a call and returns the insert outcome,
// instead of the default fire-and-forget publish.
func AppendReport() ReportOption { return func(s *reportSettings) { s.append = true } }

// ReportedAt sets the row's timestamp (default: now).
func ReportedAt(t time.Time) ReportOption { return func(s *reportSettings) { s.tsp = t } }

// UserMessage sets the message shown to users (default: the error text).
func UserMessage(msg string) ReportOption { return func(s *reportSettings) { s.userMessage = &msg } }

// ReportError writes a row to the app's error-logs table: the error text
// (for an error value its %+v form, so stack traces are kept), a user
// message, the level, source "app" and a timestamp. The row is readable with
// GetHistory and delivered on transformed.error-logs. By default it is
// published; with AppendReport it is appended and the result returned.
func (c *Client) ReportError(ctx context.Context, reported any, opts ...ReportOption) (*Result, error) {
	const op = "ReportError"
	s := reportSettings{level: LevelError}
	for _, o := range opts {
		o(&s)
	}
	switch s.level {
	case LevelError, LevelWarn, LevelInfo, LevelDebug:
	default:
		return nil, invalidArg(op, "level", "level %q is not one of error, warn, info, debug", s.level)
	}
	var msg string
	switch e := reported.(type) {
	case nil:
		return nil, invalidArg(op, "error", "nothing to report")
	case error:
		msg = fmt.Sprintf("%+v", e)
	case string:
		msg = e
	default:
		msg = fmt.Sprintf("%+v", e)
	}
	if strings.TrimSpace(msg) == "" {
		return nil, invalidArg(op, "error", "the error text is empty")
	}
	if err := c.id.requireApp(op); err != nil {
		return nil, err
	}
	tsp := s.tsp
	if tsp.IsZero() {
		tsp = time.Now()
	}
	if _, err := formatTime(tsp, "tsp"); err != nil {
		return nil, invalidArg(op, "tsp", "%v", err)
	}
	user := msg
	if s.userMessage != nil {
		user = *s.userMessage
	}
	row := map[string]any{
		"tsp":          tsp.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		"msg":          validString(msg),
		"user_message": validString(user),
		"source":       "app",
		"level":        s.level,
	}
	args, kwargs := withMetadata([]any{row}, nil, c.metadata())
	if s.append {
		uri := wire.AppendProc(c.id.SwarmKey, c.id.AppKey, wire.ErrorLogsTable)
		res, err := c.tableCall(ctx, op, wire.ErrorLogsTable, uri, args, kwargs, callSettings{})
		return res, opErr(op, uri, err)
	}
	topic := wire.TableTopic(c.id.SwarmKey, c.id.AppKey, wire.ErrorLogsTable)
	return nil, opErr(op, topic, c.tablePublish(ctx, op, topic, args, kwargs))
}
