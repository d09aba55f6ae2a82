// This file holds the SQL functions of the PostgreSQL store (postgres.go),
// made in its schema <prefix>ironflock: the conversions of the reference
// semantics (filter_ops.go, series_agg.go, javascript.go) that SQL has no
// built-in for, so that a filter or a series runs in the database with
// the memory store's answers:
//
//	ifl_num_text(float8)      a number as JavaScript's String() and Go's JSON write it
//	ifl_go_string(text)       a JSON string as Go's encoding/json escapes it
//	ifl_go_json(jsonb)        the canonical JSON text of a value (store.JSONText)
//	ifl_path_text(jsonb)      a value at a json path read as text
//	ifl_path_number(jsonb)    a value at a json path read as a number (JavaScript's Number() of a text)
//	ifl_cast_numeric(jsonb)   a value at a json path cast to numeric, as a series does (22P02 when it is none)
//
// and their helpers ifl_js_decimal and ifl_radix. It serves no URI.

package postgres

import (
	"fmt"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// goSpace is what Go's strings.TrimSpace removes (unicode.IsSpace).
const goSpace = " \t\n\v\f\r\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

// sqlChars is an escape string literal (E-prefixed) holding the
// characters of s.
func sqlChars(s string) string {
	var b strings.Builder
	b.WriteString("E'")
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	b.WriteString("'")
	return b.String()
}

// helperFunctions returns the statements that make the store's functions
// in schema m (quoted).
func helperFunctions(m string) string {
	r := strings.NewReplacer("M.", m+".", "GOSPACE", sqlChars(goSpace), "JSSPACE", sqlChars(store.JSWhitespace))
	return r.Replace(`
CREATE OR REPLACE FUNCTION M.ifl_num_text(f double precision) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET extra_float_digits = 1 AS $$
DECLARE
	t text; m text[]; digits text; p int; e int;
BEGIN
	IF f = 0 THEN RETURN '0'; END IF;
	IF f = 'NaN'::float8 THEN RETURN 'NaN'; END IF;
	IF f = 'Infinity'::float8 THEN RETURN 'Infinity'; END IF;
	IF f = '-Infinity'::float8 THEN RETURN '-Infinity'; END IF;
	IF f = trunc(f) AND abs(f) <= 9007199254740992 THEN RETURN f::bigint::text; END IF;
	-- the shortest exact digits, as 0.<digits> × 10^p
	m := regexp_match(f::text, '^-?([0-9]+)(?:\.([0-9]+))?(?:e([+-][0-9]+))?$');
	digits := m[1] || coalesce(m[2], '');
	p := length(m[1]) + coalesce(m[3]::int, 0) - (length(digits) - length(ltrim(digits, '0')));
	digits := rtrim(ltrim(digits, '0'), '0');
	IF abs(f) < 1e-6 OR abs(f) >= 1e21 THEN
		e := p - 1;
		t := left(digits, 1) || CASE WHEN length(digits) > 1 THEN '.' || substr(digits, 2) ELSE '' END
			|| 'e' || CASE WHEN e < 0 THEN '-' ELSE '+' END || abs(e)::text;
	ELSIF p <= 0 THEN
		t := '0.' || repeat('0', -p) || digits;
	ELSIF p >= length(digits) THEN
		t := digits || repeat('0', p - length(digits));
	ELSE
		t := left(digits, p) || '.' || substr(digits, p + 1);
	END IF;
	RETURN CASE WHEN f < 0 THEN '-' || t ELSE t END;
END $$;

CREATE OR REPLACE FUNCTION M.ifl_go_string(s text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT replace(replace(replace(replace(replace(to_json(s)::text,
		'<', '\u003c'), '>', '\u003e'), '&', '\u0026'), chr(8232), '\u2028'), chr(8233), '\u2029')
$$;

CREATE OR REPLACE FUNCTION M.ifl_go_json(j jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE r text;
BEGIN
	CASE jsonb_typeof(j)
	WHEN 'object' THEN
		SELECT '{' || coalesce(string_agg(M.ifl_go_string(k) || ':' || M.ifl_go_json(v), ',' ORDER BY k COLLATE "C"), '') || '}'
			INTO r FROM jsonb_each(j) AS e(k, v);
		RETURN r;
	WHEN 'array' THEN
		SELECT '[' || coalesce(string_agg(M.ifl_go_json(v), ',' ORDER BY n), '') || ']'
			INTO r FROM jsonb_array_elements(j) WITH ORDINALITY AS a(v, n);
		RETURN r;
	WHEN 'string' THEN RETURN M.ifl_go_string(j #>> '{}');
	WHEN 'number' THEN RETURN M.ifl_num_text(j::float8);
	ELSE RETURN j::text;
	END CASE;
END $$;

CREATE OR REPLACE FUNCTION M.ifl_path_text(j jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE jsonb_typeof(j)
		WHEN 'string' THEN j #>> '{}'
		WHEN 'boolean' THEN j #>> '{}'
		WHEN 'number' THEN M.ifl_num_text(j::float8)
		WHEN 'object' THEN M.ifl_go_json(j)
		WHEN 'array' THEN M.ifl_go_json(j)
	END
$$;

CREATE OR REPLACE FUNCTION M.ifl_js_decimal(s text) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE m text[];
BEGIN
	IF ltrim(s, '+') = 'Infinity' THEN RETURN 'Infinity'; END IF;
	IF s = '-Infinity' THEN RETURN '-Infinity'; END IF;
	RETURN s::float8;
EXCEPTION WHEN numeric_value_out_of_range THEN
	-- beyond the range: infinite when the magnitude is large, 0 when tiny
	m := regexp_match(s, '^([+-]?)0*([0-9]*)\.?[0-9]*(?:[eE]([+-]?[0-9]+))?$');
	IF length(m[2]) + coalesce(m[3]::numeric, 0) > 0 THEN
		RETURN CASE WHEN m[1] = '-' THEN '-Infinity'::float8 ELSE 'Infinity'::float8 END;
	END IF;
	RETURN 0;
END $$;

CREATE OR REPLACE FUNCTION M.ifl_radix(digits text, base int) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE n numeric := 0; c text; d int;
BEGIN
	IF digits = '' THEN RETURN NULL; END IF;
	FOREACH c IN ARRAY regexp_split_to_array(lower(digits), '') LOOP
		d := strpos('0123456789abcdef', c) - 1;
		IF d < 0 OR d >= base THEN RETURN NULL; END IF;
		n := n * base + d;
		IF n > 18446744073709551615 THEN RETURN NULL; END IF;
	END LOOP;
	RETURN n::float8;
END $$;

CREATE OR REPLACE FUNCTION M.ifl_path_number(j jsonb) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE s text; t text;
BEGIN
	CASE jsonb_typeof(j)
	WHEN 'number' THEN RETURN j::float8;
	WHEN 'string' THEN
		s := j #>> '{}';
		IF btrim(s, GOSPACE) = '' THEN RETURN NULL; END IF;
		t := btrim(s, JSSPACE);
		IF t = '' THEN RETURN 0; END IF;
		IF length(t) > 2 AND left(t, 1) = '0' AND substr(t, 2, 1) IN ('x', 'X', 'o', 'O', 'b', 'B') THEN
			RETURN M.ifl_radix(substr(t, 3), CASE lower(substr(t, 2, 1)) WHEN 'x' THEN 16 WHEN 'o' THEN 8 ELSE 2 END);
		END IF;
		IF t !~ '^[+-]?(Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)$' THEN RETURN NULL; END IF;
		RETURN M.ifl_js_decimal(t);
	ELSE RETURN NULL;
	END CASE;
END $$;

CREATE OR REPLACE FUNCTION M.ifl_cast_numeric(j jsonb) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE t text;
BEGIN
	CASE coalesce(jsonb_typeof(j), 'null')
	WHEN 'null' THEN RETURN NULL;
	WHEN 'number' THEN RETURN j::float8;
	WHEN 'string' THEN
		t := btrim(j #>> '{}', GOSPACE);
		IF t ~ '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$' THEN RETURN M.ifl_js_decimal(t); END IF;
	ELSE
	END CASE;
	RAISE EXCEPTION 'invalid input syntax for type numeric: %', j::text USING ERRCODE = '22P02';
END $$;
`)
}
