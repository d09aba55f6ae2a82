package template

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Defaults and limits of the files section (package template).
const (
	// DefaultNamespace is the namespace every app has, declared or not.
	DefaultNamespace = "default"
	// MinQuotaBytes is the smallest files.quotaBytes: 1 MiB.
	MinQuotaBytes int64 = 1 << 20
	// DefaultMaxObjectBytes is a namespace's object size limit when it sets
	// none: 100 MiB.
	DefaultMaxObjectBytes int64 = 100 << 20
	// MaxObjectBytesLimit is the largest maxObjectBytes: 5 GiB.
	MaxObjectBytesLimit int64 = 5 << 30
	// DefaultLinkMaxTTL is a namespace's longest share link when it sets none.
	DefaultLinkMaxTTL = 15 * time.Minute
	// MaxLinkTTL is the ceiling of linkMaxTtl.
	MaxLinkTTL = 24 * time.Hour
)

// Share modes of a namespace.
const (
	// ShareAuthenticated lets only authenticated platform users open URLs
	// (the default).
	ShareAuthenticated = "authenticated"
	// ShareLink allows anonymous share links of limited lifetime.
	ShareLink = "link"
	// ShareNone disallows share URLs.
	ShareNone = "none"
)

// Files is the files section: the app's managed object storage.
type Files struct {
	// Description is free text.
	Description string
	// QuotaBytes is the suggested storage budget; 0 when absent.
	QuotaBytes int64
	// Namespaces are the declared namespaces in file order. The namespace
	// "default" exists beside them even when it is not declared (see
	// DataTemplate.NamespaceNames).
	Namespaces []Namespace
}

// Namespace is one entry of files.namespaces, with defaults applied.
type Namespace struct {
	// Name is the namespace name.
	Name string
	// Description is free text.
	Description string
	// Private namespaces are not readable by consuming apps.
	Private bool
	// ContentTypes are the allowed MIME globs ("type/subtype", "type/*",
	// "*/*"); default ["*/*"].
	ContentTypes []string
	// MaxObjectBytes is the size limit per object; default 100 MiB.
	MaxObjectBytes int64
	// Retention deletes old objects; nil keeps them.
	Retention *Retention
	// Share is ShareAuthenticated (default), ShareLink or ShareNone.
	Share string
	// LinkMaxTTL is the longest lifetime of a share link; default 15m.
	LinkMaxTTL time.Duration
}

// Retention says when objects of a namespace are deleted.
type Retention struct {
	// DeleteAfter is an age such as "30 days" or "1 year".
	DeleteAfter string
}

// defaultNamespace returns the implicit namespace with every default.
func defaultNamespace() Namespace {
	return Namespace{
		Name:           DefaultNamespace,
		ContentTypes:   []string{"*/*"},
		MaxObjectBytes: DefaultMaxObjectBytes,
		Share:          ShareAuthenticated,
		LinkMaxTTL:     DefaultLinkMaxTTL,
	}
}

// NamespaceNames returns the namespaces files may be stored in, sorted:
// "default", which every app has (seed rule), and the declared ones. A
// declared namespace named "default" only sets that namespace's options.
func (t *DataTemplate) NamespaceNames() []string {
	names := []string{DefaultNamespace}
	if t != nil && t.Files != nil {
		for _, ns := range t.Files.Namespaces {
			if ns.Name != DefaultNamespace {
				names = append(names, ns.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// Namespace returns the namespace of that name: a declared one, or
// "default" with every default applied when the template does not declare
// it.
func (t *DataTemplate) Namespace(name string) (*Namespace, bool) {
	if t != nil && t.Files != nil {
		for i := range t.Files.Namespaces {
			if t.Files.Namespaces[i].Name == name {
				return &t.Files.Namespaces[i], true
			}
		}
	}
	if name == DefaultNamespace {
		ns := defaultNamespace()
		return &ns, true
	}
	return nil, false
}

var filesKeys = []string{"description", "quotaBytes", "namespaces"}

// files walks the files section.
func (c *checker) files(n *yaml.Node, path string) *Files {
	m := c.mapping(n, path, "a mapping with the keys description, quotaBytes and namespaces")
	if m == nil {
		return nil
	}
	c.unknownKeys(m, filesKeys)
	f := &Files{}
	c.optText(m, "description", &f.Description)
	if v := m.value("quotaBytes"); v != nil {
		p := keyPath(path, "quotaBytes")
		if q, ok := c.integer(v, p); ok {
			if q < MinQuotaBytes {
				c.errorf(v, p, "quotaBytes %d is too small; allowed: at least %d (1 MiB)", q, MinQuotaBytes)
			} else {
				f.QuotaBytes = q
			}
		}
	}
	if v := m.value("namespaces"); v != nil {
		p := keyPath(path, "namespaces")
		items, _ := c.sequence(v, p, "a list of namespaces")
		seen := map[string]*yaml.Node{}
		for i, it := range items {
			ns, at, ok := c.namespace(it, indexPath(p, i))
			if !ok {
				continue
			}
			if prev := seen[ns.Name]; prev != nil {
				c.errorf(at, keyPath(indexPath(p, i), "name"), "duplicate namespace %q (first at line %d); names must be unique", ns.Name, prev.Line)
				continue
			}
			seen[ns.Name] = at
			f.Namespaces = append(f.Namespaces, ns)
		}
	}
	return f
}

var (
	namespaceName = regexp.MustCompile(`^[a-z][a-z0-9-]{1,62}$`)
	mimeGlob      = regexp.MustCompile(`^(\*/\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/(\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*))$`)
	deleteAfter   = regexp.MustCompile(`^[1-9][0-9]* (hour|day|week|month|year)s?$`)
	linkTTL       = regexp.MustCompile(`^([1-9][0-9]*)(s|m|h)$`)
	shareModes    = []string{ShareAuthenticated, ShareLink, ShareNone}
	namespaceKeys = []string{"name", "description", "private", "contentTypes", "maxObjectBytes", "retention", "share", "linkMaxTtl"}
)

// checkNamespaceName returns what is wrong with a namespace name, or "".
func checkNamespaceName(name string) string {
	switch {
	case name == "sys" || name == "system" || name == "ironflock" || strings.HasPrefix(name, "ironflock-"):
		return fmt.Sprintf("%q is reserved for the platform (sys, system, ironflock, ironflock-*); choose another name", name)
	case !namespaceName.MatchString(name):
		return fmt.Sprintf("invalid namespace name %q; allowed: 2 to 63 characters, a lower-case letter, then lower-case letters, digits and - (^[a-z][a-z0-9-]{1,62}$)", name)
	}
	return ""
}

// namespace walks one namespace and applies its defaults.
func (c *checker) namespace(n *yaml.Node, path string) (Namespace, *yaml.Node, bool) {
	ns := defaultNamespace()
	ns.Name = ""
	m := c.mapping(n, path, "a namespace mapping with at least a name")
	if m == nil {
		return ns, nil, false
	}
	c.unknownKeys(m, namespaceKeys)
	v := c.required(m, "name", "")
	ok := v != nil
	if ok {
		p := keyPath(path, "name")
		if ns.Name, ok = c.text(v, p); ok {
			if msg := checkNamespaceName(ns.Name); msg != "" {
				c.errorf(v, p, "%s", msg)
				ok = false
			}
		}
	}
	c.optText(m, "description", &ns.Description)
	c.optBool(m, "private", &ns.Private)
	if v := m.value("contentTypes"); v != nil {
		ns.ContentTypes = c.contentTypes(v, keyPath(path, "contentTypes"))
	}
	if v := m.value("maxObjectBytes"); v != nil {
		p := keyPath(path, "maxObjectBytes")
		if b, iok := c.integer(v, p); iok {
			if b <= 0 || b > MaxObjectBytesLimit {
				c.errorf(v, p, "maxObjectBytes %d is out of range; allowed: 1 to %d (5 GiB)", b, MaxObjectBytesLimit)
			} else {
				ns.MaxObjectBytes = b
			}
		}
	}
	if v := m.value("retention"); v != nil {
		ns.Retention = c.retention(v, keyPath(path, "retention"))
	}
	if v := m.value("share"); v != nil {
		p := keyPath(path, "share")
		if s, sok := c.text(v, p); sok {
			if !slices.Contains(shareModes, s) {
				c.errorf(v, p, "unknown share mode %q; allowed: %s", s, strings.Join(shareModes, ", "))
			} else {
				ns.Share = s
			}
		}
	}
	if v := m.value("linkMaxTtl"); v != nil {
		p := keyPath(path, "linkMaxTtl")
		if s, sok := c.text(v, p); sok {
			if d, msg := parseLinkTTL(s); msg != "" {
				c.errorf(v, p, "%s", msg)
			} else {
				ns.LinkMaxTTL = d
			}
		}
	}
	return ns, v, ok
}

// contentTypes reads a list of MIME globs.
func (c *checker) contentTypes(n *yaml.Node, path string) []string {
	items, ok := c.sequence(n, path, `a list of MIME types such as ["image/*", "application/pdf"]`)
	if !ok {
		return []string{"*/*"}
	}
	if len(items) == 0 {
		c.errorf(n, path, `the list is empty, so no object could be stored; list MIME types, or omit contentTypes to allow "*/*"`)
	}
	var out []string
	for i, it := range items {
		p := indexPath(path, i)
		s, ok := c.text(it, p)
		switch {
		case !ok:
		case !mimeGlob.MatchString(s):
			c.errorf(it, p, `invalid MIME type %q; allowed: "type/subtype", "type/*" or "*/*" without parameters`, s)
		case slices.Contains(out, s):
			c.warnf(it, p, "MIME type %q is listed twice", s)
		default:
			out = append(out, s)
		}
	}
	return out
}

// retention reads a namespace's retention mapping.
func (c *checker) retention(n *yaml.Node, path string) *Retention {
	m := c.mapping(n, path, `a mapping like {deleteAfter: "30 days"}`)
	if m == nil {
		return nil
	}
	c.unknownKeys(m, []string{"deleteAfter"})
	v := c.required(m, "deleteAfter", `for example "30 days"`)
	if v == nil {
		return nil
	}
	p := keyPath(path, "deleteAfter")
	s, ok := c.text(v, p)
	if !ok {
		return nil
	}
	if !deleteAfter.MatchString(s) {
		c.errorf(v, p, `invalid age %q; allowed: a whole number, a space and hour, day, week, month or year (plural allowed), for example "30 days"`, s)
		return nil
	}
	return &Retention{DeleteAfter: s}
}

// parseLinkTTL parses linkMaxTtl; the message is "" when it is valid.
func parseLinkTTL(s string) (time.Duration, string) {
	m := linkTTL.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Sprintf(`invalid duration %q; allowed: a whole number followed by s, m or h, for example "15m"`, s)
	}
	unit := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[m[2]]
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > int64(MaxLinkTTL/unit) {
		return 0, fmt.Sprintf("linkMaxTtl %q is too long; allowed: at most 24h", s)
	}
	return time.Duration(n) * unit, ""
}
