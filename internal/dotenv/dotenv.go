// Package dotenv reads and writes a device environment as text: the
// dotenv subset client.WithEnvFile reads, and POSIX shell export lines
// for eval "$(flockd env DEVICE)".
//
// The subset, line by line:
//
//   - a blank line, or a comment: # first on the line after blanks;
//   - KEY=VALUE, optionally after "export ", with blanks allowed around
//     KEY and before VALUE. KEY is a letter or _ followed by letters,
//     digits or _. A key given twice is an error.
//   - VALUE unquoted: the rest of the line, surrounding blanks removed; a
//     # after a blank starts a comment; it may not start with a quote.
//   - VALUE in single quotes: every character as it is up to the next ',
//     on the same line.
//   - VALUE in double quotes: up to the next unescaped ", on the same
//     line, with the escapes \n \r \t \" \\ and \$; any other backslash
//     is an error. Nothing is expanded: $ is a dollar sign.
//   - after a quoted value only blanks and a comment may follow.
//
// Every error names the line. Marshal writes this subset (single quotes
// when the value allows them, else double quotes), so that Parse reads
// back exactly what it wrote, and so do the dotenv readers of docker
// compose and python-dotenv.
package dotenv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Parse reads the dotenv subset of the package doc from r. Errors read
// "line N: reason".
func Parse(r io.Reader) (map[string]string, error) {
	env := map[string]string{}
	first := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSuffix(sc.Text(), "\r")
		key, value, ok, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if !ok {
			continue
		}
		if at, dup := first[key]; dup {
			return nil, fmt.Errorf("line %d: %s is set again (first on line %d)", n, key, at)
		}
		first[key] = n
		env[key] = value
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	return env, nil
}

const blanks = " \t"

// parseLine reads one line; ok is false for a blank line or a comment.
func parseLine(line string) (key, value string, ok bool, err error) {
	s := strings.TrimLeft(line, blanks)
	if s == "" || s[0] == '#' {
		return "", "", false, nil
	}
	if rest, found := strings.CutPrefix(s, "export"); found && rest != "" && strings.ContainsRune(blanks, rune(rest[0])) {
		s = strings.TrimLeft(rest, blanks)
	}
	eq := strings.IndexByte(s, '=')
	if eq < 0 {
		return "", "", false, fmt.Errorf("want KEY=VALUE, got %q", clip(line))
	}
	key = strings.TrimRight(s[:eq], blanks)
	if !ValidKey(key) {
		return "", "", false, fmt.Errorf("%q is not a variable name (a letter or _, then letters, digits or _)", clip(key))
	}
	raw := s[eq+1:]
	s = strings.TrimLeft(raw, blanks)
	var rest string
	switch {
	case strings.HasPrefix(s, "'"):
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false, fmt.Errorf("%s: the single quote is not closed on this line", key)
		}
		value, rest = s[1:1+end], s[2+end:]
	case strings.HasPrefix(s, `"`):
		value, rest, err = unquoteDouble(s[1:])
		if err != nil {
			return "", "", false, fmt.Errorf("%s: %w", key, err)
		}
	default:
		if i := strings.IndexAny(raw, blanks); i >= 0 {
			// A # after a blank starts a comment.
			for j := i; j < len(raw); j++ {
				if raw[j] == '#' && strings.ContainsRune(blanks, rune(raw[j-1])) {
					raw = raw[:j]
					break
				}
			}
		}
		return key, strings.Trim(raw, blanks), true, nil
	}
	rest = strings.TrimLeft(rest, blanks)
	if rest != "" && rest[0] != '#' {
		return "", "", false, fmt.Errorf("%s: %q after the closing quote", key, clip(rest))
	}
	return key, value, true, nil
}

// unquoteDouble reads a double-quoted value after its opening quote and
// returns it and what follows the closing quote.
func unquoteDouble(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 == len(s) {
				return "", "", fmt.Errorf("a backslash ends the line")
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '"', '\\', '$':
				b.WriteByte(s[i])
			default:
				return "", "", fmt.Errorf(`unknown escape \%c (use \n \r \t \" \\ or \$)`, s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("the double quote is not closed on this line")
}

// ValidKey reports whether k is a variable name both dotenv and POSIX
// shells take: a letter or _, then letters, digits or _.
func ValidKey(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		letter := c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Marshal writes env in the dotenv subset, one KEY=VALUE line per
// variable in key order: single-quoted unless the value holds a single
// quote or a line break, else double-quoted with escapes. A key that is
// not a variable name is an error.
func Marshal(env map[string]string) ([]byte, error) {
	var b bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if !ValidKey(k) {
			return nil, fmt.Errorf("%q is not a variable name", k)
		}
		v := env[k]
		b.WriteString(k)
		b.WriteByte('=')
		if !strings.ContainsAny(v, "'\n\r") {
			b.WriteString("'" + v + "'\n")
			continue
		}
		b.WriteByte('"')
		for i := 0; i < len(v); i++ {
			switch c := v[i]; c {
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '"', '\\', '$':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteString("\"\n")
	}
	return b.Bytes(), nil
}

// Shell writes env as POSIX shell lines export KEY='value', in key order,
// for eval: every value single-quoted, a single quote written as '\”, so
// that nothing in a value (spaces, $, `, ", line breaks) is interpreted.
// A key that is not a variable name is an error.
func Shell(env map[string]string) ([]byte, error) {
	var b bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if !ValidKey(k) {
			return nil, fmt.Errorf("%q is not a variable name", k)
		}
		b.WriteString("export " + k + "='" + strings.ReplaceAll(env[k], "'", `'\''`) + "'\n")
	}
	return b.Bytes(), nil
}
