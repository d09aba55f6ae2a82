package dotenv

import (
	"bytes"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// awkward are values that break naive quoting.
var awkward = map[string]string{
	"PLAIN":     "ws://127.0.0.1:8080/ws-ua-usr",
	"EMPTY":     "",
	"SPACES":    "  two  spaces  ",
	"SINGLE":    "it's a 'quote'",
	"DOUBLE":    `say "hi"`,
	"DOLLAR":    "$HOME ${PATH} $(id) `id`",
	"NEWLINES":  "line 1\nline 2\r\nline 3\n",
	"BACKSLASH": `C:\temp\n\\`,
	"HASH":      "a # not a comment",
	"UNICODE":   "Küche 温度 ✓",
	"MIXED":     "'\"$\\\n\t",
}

func TestParse(t *testing.T) {
	in := `# a comment
  # an indented comment

A=plain value
B = spaced   # a comment
export C='single # kept' # comment
D="esc \" \\ \$ \n\t end"
E=
F=#not a comment
G= # comment only
lower_case_1=x
`
	want := map[string]string{
		"A": "plain value", "B": "spaced", "C": "single # kept", "D": "esc \" \\ $ \n\t end", "E": "",
		"F": "#not a comment", "G": "", "lower_case_1": "x",
	}
	got, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parsed (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"A=1\nno equals sign\n":  `line 2: want KEY=VALUE, got "no equals sign"`,
		"A=1\n\n1A=2\n":          `line 3: "1A" is not a variable name`,
		"A-B=1\n":                `line 1: "A-B" is not a variable name`,
		"=1\n":                   `line 1: "" is not a variable name`,
		"A='open\n":              "line 1: A: the single quote is not closed on this line",
		"A=\"open\n":             "line 1: A: the double quote is not closed on this line",
		`A="bad \q"` + "\n":      `line 1: A: unknown escape \q`,
		"A='x' y\n":              `line 1: A: "y" after the closing quote`,
		"H='it''s'\n":            `line 1: H: "'s'" after the closing quote`,
		"A=1\nB=2\nA=3\n":        "line 3: A is set again (first on line 1)",
		`A="ends in \` + "\n":    "line 1: A: a backslash ends the line",
		"export A\n":             "line 1: want KEY=VALUE",
		"A=1\r\nB='x\r\nC=3\r\n": "line 2: B: the single quote is not closed",
	} {
		_, err := Parse(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

// TestMarshalRoundTrip: Parse reads back exactly what Marshal wrote.
func TestMarshalRoundTrip(t *testing.T) {
	b, err := Marshal(awkward)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%v in:\n%s", err, b)
	}
	if diff := cmp.Diff(awkward, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\nfile:\n%s", diff, b)
	}
	if !strings.Contains(string(b), "PLAIN='ws://127.0.0.1:8080/ws-ua-usr'\n") {
		t.Errorf("a plain value is not single-quoted:\n%s", b)
	}
	if _, err := Marshal(map[string]string{"NOT-A-NAME": "x"}); err == nil {
		t.Error("a key that is no variable name was written")
	}
}

// TestShellRoundTrip: a POSIX shell that evals the export lines holds
// every value exactly.
func TestShellRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("no POSIX shell to check the export lines with: %v", err)
	}
	b, err := Shell(awkward)
	if err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(awkward))
	script := `eval "$1"` + "\n"
	for _, k := range keys {
		script += `printf '%s\0' "$` + k + `"` + "\n"
	}
	cmd := exec.Command(sh, "-c", script, "sh", string(b))
	cmd.Env = []string{}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh: %v\n%s", err, b)
	}
	vals := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	got := map[string]string{}
	for i, k := range keys {
		if i < len(vals) {
			got[k] = vals[i]
		}
	}
	if diff := cmp.Diff(awkward, got); diff != "" {
		t.Errorf("after eval (-want +got):\n%s\nexports:\n%s", diff, b)
	}
	if _, err := Shell(map[string]string{"A B": "x"}); err == nil {
		t.Error("a key that is no variable name was exported")
	}
}
