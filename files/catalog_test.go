package files_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

func TestCatalog(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	cat, err := e.st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := &files.Catalog{
		Namespaces: []files.NamespaceInfo{
			{Name: "archive", Private: true, ContentTypes: []string{"*/*"}, MaxObjectBytes: 100 << 20},
			{Name: "default", ContentTypes: []string{"*/*"}, MaxObjectBytes: 100 << 20},
			{Name: "logs", ContentTypes: []string{"*/*"}, MaxObjectBytes: 100 << 20},
			{Name: "photos", Description: "Pictures of the machine", ContentTypes: []string{"image/*"}, MaxObjectBytes: 4096},
		},
		InlineMaxBytes:      6 << 20,
		ListMaxLimit:        1000,
		QuotaBytes:          platformtest.DefaultFilesQuota,
		SuggestedQuotaBytes: 10 << 20,
		SadKey:              cat.SadKey,
		PresignAvailable:    true,
		PresignMaxBytes:     5 << 30,
		PublicBaseURL:       e.p.HTTPURL(),
	}
	if diff := cmp.Diff(want, cat); diff != "" {
		t.Errorf("catalog (-want +got):\n%s", diff)
	}
	// Cached: the second call sends nothing; a refresh sees new settings.
	e.p.SetFilesInlineMaxBytes(1024)
	e.p.SetFilesPresign(false)
	ns, err := e.st.Namespaces(ctx)
	if err != nil || len(ns) != 4 {
		t.Fatalf("Namespaces = %v, %v", ns, err)
	}
	ns[0].ContentTypes[0] = "changed" // a copy
	if cat, _ := e.st.Catalog(ctx); cat.InlineMaxBytes != 6<<20 || cat.Namespaces[0].ContentTypes[0] != "*/*" {
		t.Errorf("cached catalog changed: %+v", cat)
	}
	if n := count(e.calls(), wire.FilesNamespaces); n != 1 {
		t.Errorf("%d catalog calls, want 1", n)
	}
	cat, err = e.st.RefreshCatalog(ctx)
	if err != nil || cat.InlineMaxBytes != 1024 || cat.PresignAvailable {
		t.Errorf("refreshed %+v, %v", cat, err)
	}
}

// TestCatalogWithoutTemplate: an app without a files section has the
// namespace default; the suggested quota is 0.
func TestCatalogWithoutTemplate(t *testing.T) {
	p := platformtest.New(t)
	inst := p.Install(p.AddDevice("d"), p.AddApp("bare", ""), platformtest.Prod)
	st := files.New(clientFor(t, inst))
	cat, err := st.Catalog(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Namespaces) != 1 || cat.Namespaces[0].Name != "default" || cat.SuggestedQuotaBytes != 0 {
		t.Errorf("catalog %+v", cat)
	}
}

func TestUsage(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	realm := e.inst.Realm()
	e.p.StoreFile(realm, "default", "a", pattern(100), "")
	e.p.StoreFile(realm, "logs", "b", pattern(50), "")
	u, err := e.st.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := &files.Usage{SizeBytes: 150, ObjectCount: 2, QuotaBytes: platformtest.DefaultFilesQuota, FreeBytes: platformtest.DefaultFilesQuota - 150}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	e.p.SetFilesQuota(realm, 0) // unlimited
	u, err = e.st.Usage(ctx, files.Detail())
	if err != nil {
		t.Fatal(err)
	}
	want = &files.Usage{SizeBytes: 150, ObjectCount: 2, QuotaBytes: 0, FreeBytes: -1,
		PerNamespace: map[string]int64{"archive": 0, "default": 100, "logs": 50, "photos": 0}}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("detailed usage (-want +got):\n%s", diff)
	}
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}
