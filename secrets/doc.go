// Package secrets reads and checks the secret columns of an app's own
// tables: columns declared with secret: true in the data template, which
// the platform encrypts at rest.
//
// Every other read path shows a secret as Placeholder ("__secret__"):
// GetHistory, SubscribeToTable, everything over the message router. Direct
// SQL access to the platform's database shows the ciphertext. Only Reveal
// shows the plaintext. NULL is NULL on every path.
//
//	s := secrets.New(c) // c is a *client.Client
//	res, err := s.Verify(ctx, "credentials", "api_key", candidate,
//		&client.Query{FilterAnd: []client.Filter{client.Where("machine", "=", "m1")}})
//	rows, err := s.Reveal(ctx, "credentials", &client.Query{Limit: 5})
//
// # Writing secrets
//
// Secrets are written like any column, in plaintext, with the table
// operations of package client; the platform encrypts them. On a table
// with an entity key (maintainLatestFlagFor) a row keeps the entity's
// stored secret when it leaves the column out or carries Placeholder, and
// an explicit null clears it. Value makes this safe in a Go struct: its
// zero value keeps the stored secret whatever the field's tags (omitempty,
// omitzero), Set writes a new one and Clear writes null. On a table
// without an entity key there is nothing to keep: Placeholder is refused
// (sys.dataservice.error.secret_sentinel_unresolvable) and a left-out
// column stores NULL. A value that is already ciphertext (ifsec:1:…) is
// refused (sys.dataservice.error.secret_ciphertext_rejected).
//
// # Reveal and verify
//
// Reveal returns rows newest first with their secret columns in plaintext;
// Verify compares a candidate with a secret column on the platform, in
// constant time, and says whether one of the selected rows matched and how
// many were checked (by default the most recent row). Both take a
// client.Query as GetHistory does; the limit is 1 to 100, and a larger one
// is sent as given and refused by the data backend (ErrInvalidLimit), never
// clamped (above 10000, the most any read takes, the SDK refuses it before
// sending, with client.ErrInvalidArgument). Both
// wait for a session up to the client's reconnect window and retry while
// the data backend does not serve them yet, like the table operations.
//
// The platform allows them only to the app's own containers (role app);
// every other caller gets ErrNotAuthorized. It limits each device to 30
// reveals and 120 verifications a minute (ErrRateLimited). A filter on a
// secret column is refused (ErrSecretColumn), in every read; Verify on a
// column that is not secret is ErrNotASecretColumn. A table without secret
// columns has no secret procedures: Reveal and Verify fail with
// client.ErrNotServed.
//
// Verify fails closed: only a boolean true from the platform is a match.
// The candidate travels only in the call of secret.verify.<t> and appears
// in no error message and no log line of the SDK; should the platform
// quote it in a refusal, the quote is withheld from the error.
//
// The package uses only the public API of package client.
package secrets
