// This file is the facade of the file service (package
// internal/fleetfiles, attached to every realm as a service, its object
// store and permanent URLs mounted on the platform's HTTP server): the
// options for a deployment without one and for its spill folder, the
// deployment's knobs as test controls (inline limit, presigning, an
// unreachable object store, the devices' clock skew, quotas) and the
// inspection and seeding of stored objects. The controls serve no URI; bad input fails the test as
// provisioning mistakes do.

package platformtest

import (
	"context"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/fleetfiles"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
)

// WithoutFileService makes a deployment without a file service: the
// files.* procedures are not registered, so calls answer
// wamp.error.no_such_procedure (the SDK's NOT_AVAILABLE), and the object
// store and permanent URLs answer 404.
func WithoutFileService() Option { return func(s *settings) { s.noFiles = true } }

// WithSpillDir sets the folder where the file service keeps objects
// above 1 MiB in files, so that they never sit in memory; the default is
// DefaultSpillDir(). The platform owns the folder and may share it with
// other platforms and processes: each keeps its files in a folder of its
// own inside it, removed by Close, and at start a platform removes the
// folders that processes which are gone (killed, crashed) left there.
func WithSpillDir(dir string) Option { return func(s *settings) { s.spillDir = dir } }

// DefaultUploadMinRate is the average rate, in bytes per second, below
// which an upload's body is cut by default (flockd -upload-min-rate), after
// DefaultUploadGrace: 16 KiB/s, generous for any link, so that a client
// that trickles its body cannot hold its connection for ever.
const (
	DefaultUploadMinRate = fleetfiles.DefaultUploadMinRate
	DefaultUploadGrace   = fleetfiles.DefaultUploadGrace
)

// WithUploadMinRate sets the pace an upload's body (a PUT to an upload
// URL) must keep: every byte must have come by grace plus the time
// bytesPerSecond needs for the bytes before it; a slower body is cut with
// 408 RequestTimeout and nothing of it is kept. bytesPerSecond ≤ 0 keeps
// no bound. The default is DefaultUploadMinRate after DefaultUploadGrace.
func WithUploadMinRate(bytesPerSecond int64, grace time.Duration) Option {
	return func(s *settings) { s.uploadRate = fleetfiles.UploadRate{MinRate: bytesPerSecond, Grace: grace} }
}

// DefaultSpillDir returns the file service's spill folder without
// WithSpillDir: ironflock-spill-<user ID> in the system's temporary folder
// (os.TempDir).
func DefaultSpillDir() string { return memory.DefaultSpillDir() }

// newFileService builds the platform's file service.
func (p *Platform) newFileService() (*fleetfiles.Service, error) {
	key, err := p.keys.Key(context.Background(), store.PresignKey)
	if err != nil {
		return nil, fmt.Errorf("the key of upload URLs: %w", err)
	}
	return fleetfiles.New(fleetfiles.Config{
		Lookup: p.realmDataTemplate, Registry: p.reg, Clock: p.clock, BaseURL: p.HTTPURL,
		Absent: p.set.noFiles, Log: p.log, Objects: p.objects, SignKey: key,
		UploadRate: p.set.uploadRate, Metrics: p.set.metrics,
	}), nil
}

// DefaultFilesQuota is the storage budget of an app's data backend whose
// project user set none: 1 GiB.
const DefaultFilesQuota = fleetfiles.DefaultQuotaBytes

// SetFilesInlineMaxBytes sets the inline transfer limit the catalog
// reports (inline_max_bytes): objects up to it travel through the router,
// larger ones directly to the object store. The default is 6 MiB
// (6291456). A negative limit fails the test.
func (p *Platform) SetFilesInlineMaxBytes(n int64) {
	if n < 0 {
		p.failf("files: inline limit %d is negative", n)
		return
	}
	p.files.Update(func(s *fleetfiles.Settings) { s.InlineMaxBytes = n })
}

// SetFilesPresign turns direct transfers on (the default) or off. Off
// models an air-gapped deployment: files.read.url and files.write.url
// answer NOT_SUPPORTED and the catalog says presign_available false, so
// reads above the inline limit go in ranges through the router and
// writes above it fail with TOO_LARGE.
func (p *Platform) SetFilesPresign(on bool) {
	p.files.Update(func(s *fleetfiles.Settings) { s.Presign = on })
}

// SetObjectStoreReachable makes the object store reachable (the default)
// or not: while unreachable, URLs are still minted but every request to
// them has its connection closed before an answer, as for a device behind
// a proxy that lets only the router through (PRESIGN_UNREACHABLE).
// Permanent URLs are served by the platform's HTTP edge and stay
// reachable.
func (p *Platform) SetObjectStoreReachable(on bool) {
	p.files.Update(func(s *fleetfiles.Settings) { s.Unreachable = !on })
}

// SetDeviceClockSkew puts the devices' clocks d off the platform clock as
// the object store sees them: the Date header of each direct request is
// shifted by d before it is compared with platform time, and a
// difference over 15 minutes is refused with 403 RequestTimeTooSkewed
// (CLOCK_SKEW). Moving the platform clock (Clock().Advance) has the same
// effect on requests. 0 (the default) trusts the header.
func (p *Platform) SetDeviceClockSkew(d time.Duration) {
	p.files.Update(func(s *fleetfiles.Settings) { s.ClockSkew = d })
}

// SetFilesQuota sets the storage budget of a realm's data backend, the
// project user's setting, shared by all of the app's namespaces: 0 is
// unlimited. The default is DefaultFilesQuota. A negative budget fails the
// test; the realm need not be provisioned yet.
func (p *Platform) SetFilesQuota(realm string, bytes int64) {
	if bytes < 0 {
		p.failf("files: quota %d of realm %q is negative", bytes, realm)
		return
	}
	p.files.Update(func(s *fleetfiles.Settings) { s.Quotas[realm] = bytes })
}

// FileObject is a stored object as FileObjects shows it.
type FileObject struct {
	Namespace      string
	Key            string
	Size           int64
	ETag           string // MD5 of the content, hex
	ContentType    string
	ChecksumSHA256 string // hex
	LastModified   time.Time
}

// FileObjects returns the objects stored in a realm's data backend,
// ordered by namespace and key, after retention. An unknown realm fails
// the test (a platform made by Start panics).
func (p *Platform) FileObjects(realm string) []FileObject {
	b := p.fileBucket(realm)
	if b == nil {
		return nil
	}
	var out []FileObject
	for _, o := range b.Objects() {
		out = append(out, FileObject(o))
	}
	return out
}

// FileContent returns a copy of an object's content, false when it does
// not exist. An unknown realm fails the test.
func (p *Platform) FileContent(realm, namespace, key string) ([]byte, bool) {
	b := p.fileBucket(realm)
	if b == nil {
		return nil, false
	}
	data, ok, err := b.Content(namespace, key)
	if err != nil {
		p.failf("files: content of %s/%s in %q: %v", namespace, key, realm, err)
	}
	return data, ok
}

// StoreFile stores an object in a realm's data backend as an upload
// would: the key rules, the namespace's rules and the quota apply, and
// files.events is published. contentType "" is application/octet-stream.
// A refusal fails the test.
func (p *Platform) StoreFile(realm, namespace, key string, data []byte, contentType string) FileObject {
	b := p.fileBucket(realm)
	if b == nil {
		return FileObject{}
	}
	o, err := b.Store(namespace, key, data, contentType)
	if err != nil {
		p.failf("files: store %s/%s in %q: %v", namespace, key, realm, err)
	}
	return FileObject(o)
}

// fileBucket returns the file store of a realm, failing the test for an
// unknown one.
func (p *Platform) fileBucket(realm string) *fleetfiles.Bucket {
	b, err := p.files.Bucket(realm)
	if err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(fmt.Errorf("files: %w", err))
		return nil
	}
	return b
}
