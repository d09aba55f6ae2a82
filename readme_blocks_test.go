package ironflock_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// readmeRegion is a region of readme_test.go shown in the README.
type readmeRegion struct {
	name string
	line int
	code string // without the indentation all its lines share
}

// readmeBlock is a ```go block of README.md.
type readmeBlock struct {
	line int // of its first code line
	code string
}

// TestREADME checks that every ```go block of README.md is a region of
// readme_test.go (between "// README: NAME" and "// README end"), which
// compiles and runs with the suite, and that every region is shown.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	regions, err := parseRegions(src)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseGoBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	shown := map[string]bool{}
	for _, b := range blocks {
		found := false
		for _, r := range regions {
			if r.code == b.code {
				shown[r.name], found = true, true
			}
		}
		if !found {
			t.Errorf("README.md:%d: this Go block is compiled by no test: put it verbatim between "+
				"\"// README: NAME\" and \"// README end\" in readme_test.go and use it there:\n%s", b.line, b.code)
		}
	}
	for _, r := range regions {
		if !shown[r.name] {
			t.Errorf("readme_test.go:%d: region %q is not a ```go block of README.md; copy it there:\n%s", r.line, r.name, r.code)
		}
	}
}

// parseRegions returns the regions of src.
func parseRegions(src []byte) ([]readmeRegion, error) {
	const begin, end = "// README: ", "// README end"
	var regions []readmeRegion
	var cur *readmeRegion
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, begin):
			if cur != nil {
				return nil, fmt.Errorf("readme_test.go:%d: region %q begins inside region %q", n, trimmed[len(begin):], cur.name)
			}
			cur, lines = &readmeRegion{name: trimmed[len(begin):], line: n}, nil
		case trimmed == end:
			if cur == nil {
				return nil, fmt.Errorf("readme_test.go:%d: %s outside a region", n, end)
			}
			cur.code = dedent(lines)
			regions = append(regions, *cur)
			cur = nil
		case cur != nil:
			lines = append(lines, line)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("readme_test.go:%d: region %q has no %s", cur.line, cur.name, end)
	}
	return regions, sc.Err()
}

// parseGoBlocks returns the ```go blocks of a Markdown text.
func parseGoBlocks(md []byte) ([]readmeBlock, error) {
	var blocks []readmeBlock
	var cur *readmeBlock
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```go"):
			cur, lines = &readmeBlock{line: n + 1}, nil
		case cur != nil && strings.HasPrefix(line, "```"):
			cur.code = dedent(lines)
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			lines = append(lines, line)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("README.md:%d: a ```go block is not closed", cur.line)
	}
	return blocks, sc.Err()
}

// dedent joins lines without the tabs they all begin with, and without
// blank lines at either end.
func dedent(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(out, "\n")
}

// TestREADMEBlockParsing: a block that is no region is reported, and
// indentation does not matter.
func TestREADMEBlockParsing(t *testing.T) {
	src := []byte("package x\n\nfunc f() {\n\t// README: one\n\tx := 1\n\t_ = x\n\t// README end\n}\n")
	regions, err := parseRegions(src)
	if err != nil || len(regions) != 1 || regions[0].code != "x := 1\n_ = x" || regions[0].line != 4 {
		t.Fatalf("regions %+v, %v", regions, err)
	}
	blocks, err := parseGoBlocks([]byte("text\n\n```go\nx := 1\n_ = x\n```\n\n```sh\nls\n```\n```go\ny := 2\n```\n"))
	if err != nil || len(blocks) != 2 || blocks[0].code != regions[0].code || blocks[1].code != "y := 2" || blocks[1].line != 12 {
		t.Fatalf("blocks %+v, %v", blocks, err)
	}
	if _, err := parseGoBlocks([]byte("```go\nx\n")); err == nil {
		t.Error("an open block was not refused")
	}
	if _, err := parseRegions([]byte("// README: a\n")); err == nil {
		t.Error("an open region was not refused")
	}
}
