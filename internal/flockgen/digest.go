// This file holds the schema digest: one line per table, column,
// namespace, consumed app and tool, written at the end of the generated
// file, so that Check can say what changed since it was generated.

package flockgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// digestHeader opens the digest comment.
const digestHeader = "// flockgen schema digest (flockgen -check compares it with the templates):"

// digest returns the lines "subject: detail" of the model, in file order.
func (g *gen) digest() []string {
	var out []string
	add := func(subject, detail string) { out = append(out, subject+": "+detail) }
	add("package "+g.cfg.Package, "package")
	tables := func(prefix string, ts []*table) {
		for _, t := range ts {
			subject := prefix + kindWord(t) + " " + t.id
			detail := kindWord(t)
			if len(t.entity) > 0 {
				detail += ", entity key " + strings.Join(t.entity, ", ")
			}
			if d := oneLine(t.desc); d != "" {
				detail += ", " + strconv.Quote(d)
			}
			add(subject, detail)
			for _, c := range t.cols {
				if c.implicit {
					continue
				}
				d := string(c.typ)
				if c.secret {
					d = "secret " + d
				}
				if c.path != template.DefaultPath(c.id) {
					d += " at " + c.path
				}
				if label := oneLine(c.name); label != "" && label != c.id {
					d += ", " + strconv.Quote(label)
				}
				if desc := oneLine(c.desc); desc != "" {
					d += ", " + strconv.Quote(desc)
				}
				add(subject+" column "+c.id, d)
			}
		}
	}
	tables("", g.tables)
	for _, a := range g.apps {
		add("app "+a.name, "consumed")
		tables("app "+a.name+" ", a.tables)
	}
	for _, ns := range g.namespaces {
		d := "namespace"
		if desc := oneLine(ns.desc); desc != "" {
			d += ", " + strconv.Quote(desc)
		}
		add("namespace "+ns.name, d)
	}
	for _, tp := range g.topics {
		params, _ := json.Marshal(tp.tool.Parameters)
		order := strings.Join(tp.tool.ParameterNames, ",")
		if order == "" {
			order = "-"
		}
		add("tool topic "+tp.name, fmt.Sprintf("order %s, parameters %s", order, params))
	}
	return out
}

// renderDigest writes the digest as the file's last comment.
func (g *gen) renderDigest(w writer) {
	w.p("")
	w.p("%s", digestHeader)
	w.p("//")
	for _, line := range g.digest() {
		w.p("//\t%s", line)
	}
}

// readDigest returns the digest lines of a generated file; ok is false
// when it has none.
func readDigest(code []byte) (lines []string, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(code))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	in := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == digestHeader:
			in, ok = true, true
		case in && strings.HasPrefix(line, "//\t"):
			lines = append(lines, strings.TrimPrefix(line, "//\t"))
		}
	}
	return lines, ok
}

// diffDigest names what changed from old to new, one line per subject:
// "table readings column label: added (string)". Subjects under an added
// or removed table (or app) are not listed again.
func diffDigest(old, new []string) []string {
	parse := func(lines []string) (map[string]string, []string) {
		m := map[string]string{}
		var order []string
		for _, l := range lines {
			subject, detail, _ := strings.Cut(l, ": ")
			if _, dup := m[subject]; !dup {
				order = append(order, subject)
			}
			m[subject] = detail
		}
		return m, order
	}
	om, oorder := parse(old)
	nm, norder := parse(new)
	var changes []string
	var gone []string // subjects added or removed whole
	covered := func(subject string) bool {
		for _, p := range gone {
			if strings.HasPrefix(subject, p+" ") {
				return true
			}
		}
		return false
	}
	for _, s := range oorder {
		if _, ok := nm[s]; !ok && !covered(s) {
			changes = append(changes, s+": removed ("+om[s]+")")
			gone = append(gone, s)
		}
	}
	for _, s := range norder {
		od, ok := om[s]
		switch {
		case !ok && !covered(s):
			changes = append(changes, s+": added ("+nm[s]+")")
			gone = append(gone, s)
		case ok && od != nm[s]:
			changes = append(changes, s+": changed ("+od+" → "+nm[s]+")")
		}
	}
	return changes
}
