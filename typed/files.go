// This file holds Namespace, a handle on one file namespace of the app's
// data template over a files.Store.

package typed

import (
	"context"
	"io"
	"iter"

	"github.com/flockgo/ironflock/files"
)

// Namespace is a handle on one file namespace of the app: the methods of
// files.Store, each in this namespace. An option files.Namespace given to
// a method is overridden.
type Namespace struct {
	st   *files.Store
	name string
}

// NewNamespace returns the handle on the namespace name of st (generated
// code calls it with the namespaces of the data template).
func NewNamespace(st *files.Store, name string) Namespace { return Namespace{st: st, name: name} }

// Name returns the namespace's name.
func (n Namespace) Name() string { return n.name }

func (n Namespace) opts(opts []files.Option) []files.Option {
	return append(opts[:len(opts):len(opts)], files.Namespace(n.name))
}

// Put stores data under key (files.Store.Put).
func (n Namespace) Put(ctx context.Context, key string, data []byte, opts ...files.Option) (*files.Object, error) {
	return n.st.Put(ctx, key, data, n.opts(opts)...)
}

// PutReader stores size bytes read from r under key (files.Store.PutReader).
func (n Namespace) PutReader(ctx context.Context, key string, r io.Reader, size int64, opts ...files.Option) (*files.Object, error) {
	return n.st.PutReader(ctx, key, r, size, n.opts(opts)...)
}

// PutFile stores the file at path under key (files.Store.PutFile).
func (n Namespace) PutFile(ctx context.Context, key, path string, opts ...files.Option) (*files.Object, error) {
	return n.st.PutFile(ctx, key, path, n.opts(opts)...)
}

// Get returns the object's content (files.Store.Get).
func (n Namespace) Get(ctx context.Context, key string, opts ...files.Option) ([]byte, error) {
	return n.st.Get(ctx, key, n.opts(opts)...)
}

// GetTo writes the object's content to w (files.Store.GetTo).
func (n Namespace) GetTo(ctx context.Context, key string, w io.Writer, opts ...files.Option) (*files.Object, error) {
	return n.st.GetTo(ctx, key, w, n.opts(opts)...)
}

// GetToFile writes the object's content to the file at path, atomically
// (files.Store.GetToFile).
func (n Namespace) GetToFile(ctx context.Context, key, path string, opts ...files.Option) (*files.Object, error) {
	return n.st.GetToFile(ctx, key, path, n.opts(opts)...)
}

// Stat returns the object's metadata (files.Store.Stat).
func (n Namespace) Stat(ctx context.Context, key string, opts ...files.Option) (*files.Object, error) {
	return n.st.Stat(ctx, key, n.opts(opts)...)
}

// Exists reports whether the object exists (files.Store.Exists).
func (n Namespace) Exists(ctx context.Context, key string, opts ...files.Option) (bool, error) {
	return n.st.Exists(ctx, key, n.opts(opts)...)
}

// Delete removes the object (files.Store.Delete).
func (n Namespace) Delete(ctx context.Context, key string, opts ...files.Option) error {
	return n.st.Delete(ctx, key, n.opts(opts)...)
}

// Copy copies the object to the key to, in this namespace unless
// files.ToNamespace says otherwise (files.Store.Copy).
func (n Namespace) Copy(ctx context.Context, key, to string, opts ...files.Option) (*files.Object, error) {
	return n.st.Copy(ctx, key, to, n.opts(opts)...)
}

// Move moves the object to the key to, in this namespace unless
// files.ToNamespace says otherwise (files.Store.Move).
func (n Namespace) Move(ctx context.Context, key, to string, opts ...files.Option) (*files.Object, error) {
	return n.st.Move(ctx, key, to, n.opts(opts)...)
}

// List returns one page of the namespace's objects (files.Store.List).
func (n Namespace) List(ctx context.Context, opts ...files.Option) (*files.Page, error) {
	return n.st.List(ctx, n.opts(opts)...)
}

// Iter iterates over the namespace's objects (files.Store.Iter).
func (n Namespace) Iter(ctx context.Context, opts ...files.Option) iter.Seq2[files.Object, error] {
	return n.st.Iter(ctx, n.opts(opts)...)
}

// URL returns the object's permanent URL (files.Store.URL).
func (n Namespace) URL(ctx context.Context, key, version string, opts ...files.Option) (string, error) {
	return n.st.URL(ctx, key, version, n.opts(opts)...)
}

// ShareURL returns an expiring URL anyone may read (files.Store.ShareURL).
func (n Namespace) ShareURL(ctx context.Context, key string, opts ...files.Option) (*files.Share, error) {
	return n.st.ShareURL(ctx, key, n.opts(opts)...)
}

// UploadURL returns a presigned upload of the key (files.Store.UploadURL).
func (n Namespace) UploadURL(ctx context.Context, key string, opts ...files.Option) (*files.Upload, error) {
	return n.st.UploadURL(ctx, key, n.opts(opts)...)
}
