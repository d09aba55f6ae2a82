// Package files is the managed file storage of an IronFlock app: private
// object storage per app data backend, reached through the platform's
// file service (files.read.* and files.write.* procedures) and, for
// large objects, directly through the object store over HTTP.
//
//	st := files.New(c) // c: a started *client.Client
//	obj, err := st.Put(ctx, "reports/2026-01.pdf", pdf, files.ContentType("application/pdf"))
//	data, err := st.Get(ctx, "reports/2026-01.pdf")
//	for o, err := range st.Iter(ctx, files.Prefix("reports/")) { … }
//
// # Namespaces
//
// Every app has the namespace "default", even without a files section in
// its data template; the template may declare others, each a key prefix
// carrying policy (allowed content types, a size limit per object,
// privacy, retention). All namespaces share one storage area and one
// budget. Every method takes an optional Namespace; without it the call
// goes to "default".
//
// # Keys
//
// A key is a path such as "reports/2026-01.pdf"; the file service checks
// the key rules (docs/wire.md §7.15) and refuses a key that breaks them
// with INVALID_KEY. The package sends keys as given, but for one rule it
// checks itself: a key, a destination or a list prefix that is not valid
// UTF-8 is refused before anything is sent, with an error that matches
// client.ErrInvalidArgument and has the code INVALID_KEY (sent as it is,
// its invalid bytes would become U+FFFD on the wire, so that two keys
// could name one object).
//
// # Transport
//
// An object up to the server-reported inline limit (6 MiB today, in the
// Catalog; it can change without a release of this package) goes through
// the router in one call. A larger one goes directly to the object store
// over HTTP with presigned URLs, streamed both ways: a 5 GiB object never
// has to fit in memory. Uploads carry Content-Length (never chunked
// encoding), downloads ask for identity encoding, and both carry the
// device's Date: the object store refuses a clock more than 15 minutes
// off (CLOCK_SKEW). Where the deployment has no direct transfers
// (air-gapped), writes above the inline limit fail with TOO_LARGE before
// anything is sent, as the seed says, but reads go beyond the seed, which
// says TOO_LARGE for them too: like the official SDK, Get reads such an
// object in ranges of the inline limit through the router
// (files.read.get with offset and length), and fails with INTERNAL when the
// object changes meanwhile. Where the object store cannot be reached,
// reads fall back the same way and writes fail with PRESIGN_UNREACHABLE.
// Objects over 5 GiB are TOO_LARGE: there is no multipart upload.
// Progress reports the bytes of a transfer; canceling the context stops
// it.
//
// # Links
//
// URL is the permanent URL of an object, readable by an authenticated
// requestor with read access on the data backend (checked on every
// request), so it may be stored in a table; it is "" where the deployment
// has no HTTP edge. ShareURL is an expiring URL anyone may read: keep it
// out of the database. UploadURL lets another program upload an object
// with a plain HTTP request, sending the returned headers exactly; the
// URL accepts uploads, each replacing the object, until it expires.
//
// # Errors
//
// Every method returns a *client.OpError naming the operation (files.Put),
// the procedure and the object, wrapping the reason. A refusal of the file
// service, and a failure of a direct transfer, is an *Error with a stable
// Code (CodeOf finds it) and a human-readable Reason; branch on the code,
// never on the reason. An unknown code from a newer server is kept as it
// is. The router's refusals are mapped: no such procedure is
// NOT_AVAILABLE (the deployment has no file service), its authorization
// refusals NOT_AUTHORIZED. Connection problems keep the client's
// sentinels (client.ErrNotConnected, …). Errors never contain a presigned
// URL: it is a bearer secret.
//
// The package uses only the public API of package client; a Store is safe
// for concurrent use.
package files
