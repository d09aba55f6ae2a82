package template

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checker collects the findings of one file while its walkers read the YAML
// node tree. Walkers never stop at the first problem: they report it and go
// on with what is still readable.
type checker struct {
	file     string
	findings []Finding
}

func (c *checker) add(sev Severity, n *yaml.Node, path, format string, args ...any) {
	f := Finding{Severity: sev, File: c.file, Path: path, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		f.Line, f.Column = n.Line, n.Column
	}
	c.findings = append(c.findings, f)
}

func (c *checker) errorf(n *yaml.Node, path, format string, args ...any) {
	c.add(SeverityError, n, path, format, args...)
}

func (c *checker) warnf(n *yaml.Node, path, format string, args ...any) {
	c.add(SeverityWarning, n, path, format, args...)
}

// sorted returns the findings in document order (stable for equal positions).
func (c *checker) sorted() []Finding {
	slices.SortStableFunc(c.findings, func(a, b Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return c.findings
}

// maxExpandedNodes bounds the size of a document once its aliases are
// expanded, so that "billion laughs" inputs cannot exhaust the validator.
const maxExpandedNodes = 200_000

// yamlLine finds the line number in yaml.v3 syntax errors ("yaml: line 3: ...").
var yamlLine = regexp.MustCompile(`^yaml: line ([0-9]+): (.*)$`)

// unquotedStar finds `key: *` or `- *` lines: an unquoted wildcard is an
// alias indicator in YAML, the commonest syntax error of data templates.
var unquotedStar = regexp.MustCompile(`(?m)(?:^|[:\-]\s)\s*(\*)\s*(?:#.*)?$`)

// parseDocument parses src and returns the root node of its single document,
// or nil when the document is unusable (the reason is reported) or empty (not
// reported: the caller knows what an empty file means for it).
func (c *checker) parseDocument(src []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		c.syntaxError(src, err)
		return nil
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		c.errorf(&extra, "", "a template holds exactly one YAML document; remove the second document (after ---)")
	case !errors.Is(err, io.EOF):
		c.syntaxError(src, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if !c.checkTree(root) {
		return nil
	}
	root = resolve(root)
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil
	}
	return root
}

// syntaxError reports a YAML parse error with the position yaml.v3 gives.
func (c *checker) syntaxError(src []byte, err error) {
	msg := err.Error()
	f := Finding{Severity: SeverityError, File: c.file}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		f.Line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if strings.Contains(msg, "did not find expected alphabetic or numeric character") {
		if loc := unquotedStar.FindSubmatchIndex(src); loc != nil {
			f.Line = bytes.Count(src[:loc[2]], []byte("\n")) + 1
			f.Column = loc[2] - (bytes.LastIndexByte(src[:loc[2]], '\n') + 1) + 1
			msg += `; an unquoted * starts an alias in YAML: write "*" in quotes`
		}
	}
	f.Message = "invalid YAML: " + msg
	c.findings = append(c.findings, f)
}

// standardTags are the tags a template may carry; anything else (custom
// "!foo" tags) would make the platform's YAML loader fail.
var standardTags = []string{"!!str", "!!int", "!!float", "!!bool", "!!null", "!!timestamp", "!!binary", "!!map", "!!seq", "!!merge", "!"}

// checkTree walks the whole tree once, following aliases, and reports alias
// cycles, oversize expansions and non-standard tags. It returns false when
// the tree must not be walked further.
func (c *checker) checkTree(root *yaml.Node) bool {
	const inProgress = -1
	size := map[*yaml.Node]int{}
	ok := true
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		switch s := size[n]; {
		case s == inProgress:
			// Only an alias can lead back to a node being walked.
			ok = false
			return maxExpandedNodes
		case s > 0:
			return s
		}
		if n.Kind == yaml.AliasNode && n.Alias != nil && size[n.Alias] == inProgress {
			c.errorf(n, "", "YAML alias *%s refers to a node that contains it; aliases must not form cycles", n.Alias.Anchor)
			ok = false
			return maxExpandedNodes
		}
		size[n] = inProgress
		total := 1
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			total += walk(n.Alias)
		} else {
			if n.Tag != "" && !slices.Contains(standardTags, n.ShortTag()) {
				c.errorf(n, "", "unknown YAML tag %q; templates use plain YAML 1.2 values only", n.Tag)
			}
			for _, ch := range n.Content {
				total += walk(ch)
				if total > maxExpandedNodes {
					break
				}
			}
		}
		total = min(total, maxExpandedNodes+1)
		size[n] = total
		return total
	}
	if walk(root) > maxExpandedNodes && ok {
		c.errorf(root, "", "document too large once its aliases are expanded (more than %d nodes)", maxExpandedNodes)
		return false
	}
	return ok
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is absent or an explicit YAML null.
func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// identKey matches keys that print without quoting in a finding path.
var identKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// keyPath appends a mapping key to a finding path.
func keyPath(path, key string) string {
	if !identKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// indexPath appends a sequence index to a finding path.
func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// describe names the kind of value a node holds, for messages.
func describe(n *yaml.Node) string {
	n = resolve(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return "the boolean " + n.Value
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!timestamp":
		return "the date " + n.Value
	}
	return "the string " + strconv.Quote(truncate(n.Value, 40))
}

// truncate shortens s to at most n runes for messages.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
