package template

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// files returns the minimal template followed by a files section whose
// keys start at line 7 ("files:" is line 6).
func files(lines ...string) string {
	return m("files:\n" + indent(2, lines))
}

// ns returns a files section with one namespace whose keys start at line 9
// (its name is on line 8).
func ns(lines ...string) string {
	return files("namespaces:", "  - name: photos") + indent(6, lines)
}

func TestParseDataFiles(t *testing.T) {
	runData(t, []tcase{
		{name: "valid", src: files("description: photos and reports", "quotaBytes: 1048576", "namespaces: []")},
		{name: "not a mapping", src: m("files: [a]\n"), want: []want{E(6, 8, "files", "must be a mapping with the keys description, quotaBytes and namespaces, got a list")}},
		{name: "quota too small", src: files("quotaBytes: 1048575"), want: []want{E(7, 15, "files.quotaBytes", "quotaBytes 1048575 is too small; allowed: at least 1048576 (1 MiB)")}},
		{name: "quota as string", src: files("quotaBytes: '1073741824'"), want: []want{E(7, 15, "files.quotaBytes", `must be an integer, got the string "1073741824"; remove the quotes`)}},
		{name: "quota with unit", src: files("quotaBytes: 1 GiB"), want: []want{E(7, 15, "files.quotaBytes", `must be an integer, got the string "1 GiB"`)}},
		{name: "quota float", src: files("quotaBytes: 1.5e9"), want: []want{E(7, 15, "files.quotaBytes", "must be an integer, got the number 1.5e9")}},
		{name: "quota hexadecimal", src: files("quotaBytes: 0x100000")},
		{name: "quota out of range", src: files("quotaBytes: 9223372036854775808"), want: []want{E(7, 15, "files.quotaBytes", "integer 9223372036854775808 is out of range")}},
		{name: "namespaces not a list", src: files("namespaces: {photos: {}}"), want: []want{E(7, 15, "files.namespaces", "must be a list of namespaces, got a mapping")}},
		{name: "unknown key", src: files("quota: 5"), want: []want{W(7, 3, "files.quota", "allowed: description, quotaBytes, namespaces")}},
	})
	tpl := mustData(t, files("quotaBytes: 2097152", "description: d"))
	if d := cmp.Diff(&Files{Description: "d", QuotaBytes: 2 << 20}, tpl.Files); d != "" {
		t.Error(d)
	}
}

func TestParseDataNamespaces(t *testing.T) {
	runData(t, []tcase{
		{name: "all keys", src: ns(
			"description: camera snapshots",
			"private: true",
			"contentTypes: [image/*, '*/*', application/vnd.ms-excel, image/svg+xml]",
			"maxObjectBytes: 5368709120",
			"retention: {deleteAfter: 2 weeks}",
			"share: link",
			"linkMaxTtl: 24h",
		)},
		{name: "name default", src: files("namespaces: [{name: default}]")},
		{name: "name two characters", src: files("namespaces: [{name: ab}]")},
		{name: "name one character", src: files("namespaces: [{name: x}]"), want: []want{E(7, 23, "files.namespaces[0].name", `invalid namespace name "x"; allowed: 2 to 63 characters, a lower-case letter, then lower-case letters, digits and - (^[a-z][a-z0-9-]{1,62}$)`)}},
		{name: "name upper case", src: files("namespaces: [{name: Photos}]"), want: []want{E(7, 23, "files.namespaces[0].name", `invalid namespace name "Photos"`)}},
		{name: "name underscore", src: files("namespaces: [{name: my_photos}]"), want: []want{E(7, 23, "files.namespaces[0].name", `invalid namespace name "my_photos"`)}},
		{name: "name 64 characters", src: files("namespaces: [{name: a123456789012345678901234567890123456789012345678901234567890123}]"), want: []want{E(7, 23, "files.namespaces[0].name", "invalid namespace name")}},
		{name: "name sys", src: files("namespaces: [{name: sys}]"), want: []want{E(7, 23, "files.namespaces[0].name", `"sys" is reserved for the platform (sys, system, ironflock, ironflock-*); choose another name`)}},
		{name: "name system", src: files("namespaces: [{name: system}]"), want: []want{E(7, 23, "files.namespaces[0].name", `"system" is reserved`)}},
		{name: "name ironflock", src: files("namespaces: [{name: ironflock}]"), want: []want{E(7, 23, "files.namespaces[0].name", `"ironflock" is reserved`)}},
		{name: "name ironflock-", src: files("namespaces: [{name: ironflock-cache}]"), want: []want{E(7, 23, "files.namespaces[0].name", `"ironflock-cache" is reserved`)}},
		{name: "name ironflocks", src: files("namespaces: [{name: ironflocks}]")},
		{name: "name missing", src: files("namespaces: [{private: true}]"), want: []want{E(7, 16, "files.namespaces[0].name", "name is required")}},
		{name: "duplicate name", src: files("namespaces: [{name: photos}, {name: photos}]"), want: []want{E(7, 39, "files.namespaces[1].name", `duplicate namespace "photos" (first at line 7); names must be unique`)}},
		{name: "namespace not a mapping", src: files("namespaces: [photos]"), want: []want{E(7, 16, "files.namespaces[0]", "must be a namespace mapping with at least a name")}},
		{name: "private yes", src: ns("private: yes"), want: []want{E(9, 16, "files.namespaces[0].private", `"yes" is a string in YAML 1.2`)}},
		{name: "content type without subtype", src: ns("contentTypes: [image]"), want: []want{E(9, 22, "files.namespaces[0].contentTypes[0]", `invalid MIME type "image"; allowed: "type/subtype", "type/*" or "*/*" without parameters`)}},
		{name: "content type star type", src: ns("contentTypes: ['*/json']"), want: []want{E(9, 22, "files.namespaces[0].contentTypes[0]", `invalid MIME type "*/json"`)}},
		{name: "content type with parameters", src: ns("contentTypes: ['text/plain; charset=utf-8']"), want: []want{E(9, 22, "files.namespaces[0].contentTypes[0]", `invalid MIME type "text/plain; charset=utf-8"`)}},
		{name: "content type partial glob", src: ns("contentTypes: ['image/png*']"), want: []want{E(9, 22, "files.namespaces[0].contentTypes[0]", `invalid MIME type "image/png*"`)}},
		{name: "content types empty", src: ns("contentTypes: []"), want: []want{E(9, 21, "files.namespaces[0].contentTypes", `the list is empty, so no object could be stored; list MIME types, or omit contentTypes to allow "*/*"`)}},
		{name: "content types a string", src: ns("contentTypes: image/*"), want: []want{E(9, 21, "files.namespaces[0].contentTypes", "must be a list of MIME types")}},
		{name: "content type twice", src: ns("contentTypes: [image/png, image/png]"), want: []want{W(9, 33, "files.namespaces[0].contentTypes[1]", `MIME type "image/png" is listed twice`)}},
		{name: "max object bytes 1", src: ns("maxObjectBytes: 1")},
		{name: "max object bytes 0", src: ns("maxObjectBytes: 0"), want: []want{E(9, 23, "files.namespaces[0].maxObjectBytes", "maxObjectBytes 0 is out of range; allowed: 1 to 5368709120 (5 GiB)")}},
		{name: "max object bytes negative", src: ns("maxObjectBytes: -1"), want: []want{E(9, 23, "files.namespaces[0].maxObjectBytes", "maxObjectBytes -1 is out of range")}},
		{name: "max object bytes above 5 GiB", src: ns("maxObjectBytes: 5368709121"), want: []want{E(9, 23, "files.namespaces[0].maxObjectBytes", "maxObjectBytes 5368709121 is out of range")}},
		{name: "retention hours", src: ns("retention: {deleteAfter: 1 hour}")},
		{name: "retention months", src: ns("retention: {deleteAfter: 6 months}")},
		{name: "retention abbreviated", src: ns("retention: {deleteAfter: 30d}"), want: []want{E(9, 32, "files.namespaces[0].retention.deleteAfter", `invalid age "30d"; allowed: a whole number, a space and hour, day, week, month or year (plural allowed), for example "30 days"`)}},
		{name: "retention zero", src: ns("retention: {deleteAfter: 0 days}"), want: []want{E(9, 32, "files.namespaces[0].retention.deleteAfter", `invalid age "0 days"`)}},
		{name: "retention capitalised", src: ns("retention: {deleteAfter: 30 Days}"), want: []want{E(9, 32, "files.namespaces[0].retention.deleteAfter", `invalid age "30 Days"`)}},
		{name: "retention minutes", src: ns("retention: {deleteAfter: 90 minutes}"), want: []want{E(9, 32, "files.namespaces[0].retention.deleteAfter", `invalid age "90 minutes"`)}},
		{name: "retention without deleteAfter", src: ns("retention: {keep: 3}"), want: []want{
			E(9, 18, "files.namespaces[0].retention.deleteAfter", `deleteAfter is required; for example "30 days"`),
			W(9, 19, "files.namespaces[0].retention.keep", "allowed: deleteAfter"),
		}},
		{name: "retention a string", src: ns("retention: 30 days"), want: []want{E(9, 18, "files.namespaces[0].retention", `must be a mapping like {deleteAfter: "30 days"}, got the string "30 days"`)}},
		{name: "share authenticated", src: ns("share: authenticated")},
		{name: "share none", src: ns("share: none")},
		{name: "share public", src: ns("share: public"), want: []want{E(9, 14, "files.namespaces[0].share", `unknown share mode "public"; allowed: authenticated, link, none`)}},
		{name: "link ttl seconds", src: ns("linkMaxTtl: 86400s")},
		{name: "link ttl minutes", src: ns("linkMaxTtl: 1440m")},
		{name: "link ttl 25h", src: ns("linkMaxTtl: 25h"), want: []want{E(9, 19, "files.namespaces[0].linkMaxTtl", `linkMaxTtl "25h" is too long; allowed: at most 24h`)}},
		{name: "link ttl 86401s", src: ns("linkMaxTtl: 86401s"), want: []want{E(9, 19, "files.namespaces[0].linkMaxTtl", `"86401s" is too long`)}},
		{name: "link ttl huge", src: ns("linkMaxTtl: 99999999999999999999h"), want: []want{E(9, 19, "files.namespaces[0].linkMaxTtl", "is too long")}},
		{name: "link ttl days", src: ns("linkMaxTtl: 1d"), want: []want{E(9, 19, "files.namespaces[0].linkMaxTtl", `invalid duration "1d"; allowed: a whole number followed by s, m or h, for example "15m"`)}},
		{name: "link ttl zero", src: ns("linkMaxTtl: 0m"), want: []want{E(9, 19, "files.namespaces[0].linkMaxTtl", `invalid duration "0m"`)}},
		{name: "link ttl Go syntax", src: ns("linkMaxTtl: 1h30m"), want: []want{E(9, 19, "files.namespaces[0].linkMaxTtl", `invalid duration "1h30m"`)}},
		{name: "unknown key", src: ns("maxBytes: 5"), want: []want{W(9, 7, "files.namespaces[0].maxBytes", "allowed: name, description, private, contentTypes, maxObjectBytes, retention, share, linkMaxTtl")}},
	})
}

func TestNamespaceDefaults(t *testing.T) {
	tpl := mustData(t, ns("contentTypes: [image/*]", "maxObjectBytes: 1024", "retention: {deleteAfter: 30 days}",
		"share: link", "linkMaxTtl: 2h", "private: true", "description: d")+"    - name: reports\n")
	wantNS := []Namespace{
		{Name: "photos", Description: "d", Private: true, ContentTypes: []string{"image/*"}, MaxObjectBytes: 1024,
			Retention: &Retention{DeleteAfter: "30 days"}, Share: ShareLink, LinkMaxTTL: 2 * time.Hour},
		{Name: "reports", ContentTypes: []string{"*/*"}, MaxObjectBytes: 100 << 20, Share: ShareAuthenticated, LinkMaxTTL: 15 * time.Minute},
	}
	if d := cmp.Diff(wantNS, tpl.Files.Namespaces); d != "" {
		t.Error(d)
	}
	if got, ok := tpl.Namespace("reports"); !ok || got.Name != "reports" {
		t.Errorf("Namespace(reports) = %v, %v", got, ok)
	}
	// "default" exists beside the declared namespaces, with every default.
	if got, ok := tpl.Namespace(DefaultNamespace); !ok || cmp.Diff(&Namespace{Name: "default", ContentTypes: []string{"*/*"},
		MaxObjectBytes: DefaultMaxObjectBytes, Share: ShareAuthenticated, LinkMaxTTL: DefaultLinkMaxTTL}, got) != "" {
		t.Errorf("Namespace(default) = %+v, %v; want the implicit default namespace", got, ok)
	}
}

func TestNamespaceNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		tpl  *DataTemplate
		want []string
	}{
		{"nil template", nil, []string{"default"}},
		{"no files section", mustData(t, m("")), []string{"default"}},
		{"files without namespaces", mustData(t, files("quotaBytes: 1048576")), []string{"default"}},
		{"empty namespaces", mustData(t, files("namespaces: []")), []string{"default"}},
		{"declared without default", mustData(t, files("namespaces: [{name: reports}, {name: photos}]")), []string{"default", "photos", "reports"}},
		{"declared after letters", mustData(t, files("namespaces: [{name: zz}, {name: ab}]")), []string{"ab", "default", "zz"}},
		{"declared with default", mustData(t, files("namespaces: [{name: photos}, {name: default}]")), []string{"default", "photos"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, tc.tpl.NamespaceNames()); d != "" {
				t.Error(d)
			}
			for _, n := range tc.want {
				if _, ok := tc.tpl.Namespace(n); !ok {
					t.Errorf("Namespace(%q) not found", n)
				}
			}
			if _, ok := tc.tpl.Namespace("missing"); ok {
				t.Error("Namespace(missing) found")
			}
		})
	}
	var nilTpl *DataTemplate
	def, _ := nilTpl.Namespace(DefaultNamespace)
	wantDef := &Namespace{Name: "default", ContentTypes: []string{"*/*"}, MaxObjectBytes: DefaultMaxObjectBytes,
		Share: ShareAuthenticated, LinkMaxTTL: DefaultLinkMaxTTL}
	if d := cmp.Diff(wantDef, def); d != "" {
		t.Error(d)
	}
	// Declaring "default" only sets its options: it is listed once.
	tpl := mustData(t, files("namespaces: [{name: photos}, {name: default, contentTypes: [text/*], maxObjectBytes: 10}]"))
	if got, _ := tpl.Namespace(DefaultNamespace); got.MaxObjectBytes != 10 || !cmp.Equal(got.ContentTypes, []string{"text/*"}) {
		t.Errorf("declared default: %+v", got)
	}
}
