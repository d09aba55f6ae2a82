// Package outbox keeps table rows on the device until the app's data
// backend has stored them: through outages of any length, restarts of the
// app and kill -9, delivered once.
//
//	ob, err := outbox.Open(c, "/data/outbox", outbox.WithIDColumn("row_id"))
//	…
//	id, err := ob.Append(ctx, "readings", Reading{Tsp: time.Now(), Celsius: 21.5})
//	// on disk now; delivered when the link allows
//	err = ob.Flush(ctx) // everything appended so far is stored
//
// # The queue
//
// Open keeps the queue in one file (FileName) in a directory, with
// go.etcd.io/bbolt: every Append is a transaction synced to disk before
// it returns, so a row Append acknowledged survives a crash, a kill -9 or
// a power cut of a disk that honours fsync. Appends made at the same time
// by several goroutines share one transaction and one sync. Reopening the
// directory resumes delivery where it stopped. A directory that holds
// something else fails with ErrForeign, a damaged file with ErrCorrupt,
// one another open outbox holds with ErrLocked; a disk that refuses a
// write (full, read only, failing) makes the operation fail with ErrDisk,
// nothing stored.
//
// The queue may be bounded in rows and bytes (WithMaxRows, WithMaxBytes);
// when it is full, Append blocks until rows are delivered (Block, the
// default), fails with ErrFull (Fail), or deletes the oldest rows of any
// table (DropOldest), which Stats counts (a row of the batch being sent
// may be among them and still be stored). Stats tells the pending rows and
// bytes, the age of the oldest, the rows delivered, dead-lettered and
// dropped, and the last error.
//
// # Delivery
//
// A sender goroutine drains the queue: per table in append order, the
// tables in turn, each batch one bulk append (client.AppendRowsToTable,
// atomic: all rows or none), at most 500 rows and about 1 MiB (WithBatch).
// A row leaves the queue only once the backend acknowledged its batch. The
// sender never dials: while the link is down its send waits inside the
// client for the supervisor's next session, so an outage of hours costs
// nothing but the disk the rows take. When the client stops the sender
// ends; the rows wait on disk for the next Open.
//
// Exactly once needs an id column: WithIDColumn names a string column of
// every table the outbox writes, and the sender puts each row's id (the
// one Append returned) in it. After a send whose answer was lost
// (client.ErrOutcomeUnknown: the link dropped after the request left; a
// send timeout; a router timeout) the sender reads the history for the
// batch's ids (GetHistory with Where(column, "IN", ids)) and sends only
// the rows the backend lacks; when it opens a directory an earlier
// process used, it does the same for the rows that process may have had
// in flight. The template package checks the column where the app's
// templates are checked (template.DataTemplate.CheckRowIDColumn), so that
// the device does not link a YAML parser for it.
//
// Without an id column, delivery is at least once: a batch whose answer
// was lost is sent again, and its rows may be stored twice. The same holds
// for a table that lacks the column WithIDColumn names (the lookup is
// refused; the sender logs it and sends the batch again).
//
// The lookup trusts that a request the link lost has reached the backend
// or died with the link by the time the sender has reconnected and asked;
// a request a router held back longer could still be stored after the
// lookup and be stored twice.
//
// # Refusals
//
// What the sender does with each answer of the data backend:
//
//	delivered                    removed from the queue
//	client.ErrNotConnected,      sent again at once; the client waits for
//	client.ErrNotSent            its next session (nothing was stored)
//	client.ErrOutcomeUnknown,    looked up by id, then the missing rows sent
//	send timeout, wamp.error.    again (without an id column: sent again)
//	timeout, wamp.error.canceled
//	storage_full,                kept; the table waits (0.5 s doubling to
//	storage_overusage,           30 s, WithRetryBackoff) and tries again
//	rate_limited, not_authorized,
//	no_such_procedure (backend
//	not up yet), runtime_error
//	with a transient Postgres
//	code (classes 08, 40, 53, 57,
//	58, XX), any URI not listed
//	client.ErrUnknownTable,      the whole batch dead-lettered: the table
//	client.ErrNotServed          is not in the data template
//	wamp.error.runtime_error,    a row is refused for good: the batch is
//	secret_ciphertext_rejected,  halved until that row is alone, which is
//	secret_sentinel_unresolvable, dead-lettered; the rows before and after
//	wamp.error.invalid_argument, it are delivered in order
//	client.ErrInvalidArgument
//	entity_key_conflict          with an id column, the batch's ids are
//	                             looked up first: rows the history holds
//	                             are ours, delivered; otherwise a refused
//	                             row, as above
//
// Refusals of URIs the package does not know keep the rows: losing data to
// a misread refusal is worse than waiting for a human, who sees the error
// in Stats.LastError. Dead letters keep the row, the error URI and text;
// DeadLetters lists them, Retry puts them back at the end of their
// table's queue, Drop deletes them.
//
// # Not covered
//
// Rows are kept in their wire form (client.Encode) and sent with the
// client's device metadata at send time. A write of the disk's own
// cache that fsync does not reach, or a disk that is lost, loses rows:
// the outbox is as durable as the directory it is given.
package outbox
