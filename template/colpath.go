package template

import (
	"errors"
	"fmt"
	"strings"
)

// pathRoots are the objects a column path may start from: the published
// message is {args, kwargs, details} (docs/wire.md §7.3).
var pathRoots = []string{"args", "kwargs", "details"}

// DefaultPath returns the path a column reads when the template sets none:
// "args[0].<id>".
func DefaultPath(id string) string {
	return "args[0]." + id
}

// PathKeys splits a column path in lodash style into the keys to follow from
// the message object {args, kwargs, details}: "args[0].sensor.value" gives
// ["args", "0", "sensor", "value"] and `kwargs["a.b"]` gives ["kwargs", "a.b"].
// Array indexes are returned as decimal strings.
func PathKeys(path string) ([]string, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	var keys []string
	i := 0
	readName := func() (string, error) {
		j := i
		for j < len(path) && path[j] != '.' && path[j] != '[' && path[j] != ']' {
			j++
		}
		if j == i {
			return "", fmt.Errorf("empty key at byte %d", i)
		}
		s := path[i:j]
		i = j
		return s, nil
	}
	first, err := readName()
	if err != nil {
		return nil, err
	}
	keys = append(keys, first)
	for i < len(path) {
		switch path[i] {
		case '.':
			i++
			k, err := readName()
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		case '[':
			k, err := readBracket(path, &i)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		default:
			return nil, fmt.Errorf("unexpected %q at byte %d", path[i], i)
		}
	}
	return keys, nil
}

// readBracket reads `[12]`, `["key"]` or `['key']` starting at path[*i].
func readBracket(path string, i *int) (string, error) {
	start := *i
	j := start + 1
	if j < len(path) && (path[j] == '"' || path[j] == '\'') {
		q := path[j]
		var b strings.Builder
		for j++; j < len(path) && path[j] != q; j++ {
			if path[j] == '\\' && j+1 < len(path) {
				j++
			}
			b.WriteByte(path[j])
		}
		if j+1 >= len(path) || path[j+1] != ']' {
			return "", fmt.Errorf("unterminated [%c…%c] at byte %d", q, q, start)
		}
		*i = j + 2
		return b.String(), nil
	}
	k := j
	for k < len(path) && path[k] >= '0' && path[k] <= '9' {
		k++
	}
	if k == j || k >= len(path) || path[k] != ']' {
		return "", fmt.Errorf("expected [index] or [\"key\"] at byte %d", start)
	}
	*i = k + 1
	return path[j:k], nil
}

// checkColumnPath returns what is wrong with a column path, or "".
func checkColumnPath(path string) string {
	keys, err := PathKeys(path)
	if err != nil {
		return fmt.Sprintf("invalid path %q: %v; write it like args[0].temperature, args[1] or kwargs.DEVICE_NAME", path, err)
	}
	for _, r := range pathRoots {
		if keys[0] == r {
			return ""
		}
	}
	return fmt.Sprintf("path %q must start at args, kwargs or details (for example args[0].%s)", path, keys[0])
}
