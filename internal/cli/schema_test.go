package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestOutputsMatchSchemas runs match and checks tracks.json and
// report.json against docs/schema: every field the files hold is declared
// with its type, and every required one is there. The schemas are the
// outputs' documented contract, so a field added or renamed without them
// fails here.
func TestOutputsMatchSchemas(t *testing.T) {
	dir := filepath.Join(dataDirForTest(t), "graffiti")
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "out")
	if b, err := exec.Command(bin, "match", dir, "-out", out, "-cache", "", "-max-dim", "400").CombinedOutput(); err != nil {
		t.Fatalf("clearmatch match: %v\n%s", err, b)
	}
	for _, name := range []string{"tracks", "report"} {
		schema := readJSON(t, filepath.Join("..", "..", "docs", "schema", name+".schema.json"))
		doc := readJSON(t, filepath.Join(out, name+".json"))
		var errs []string
		validate(schema.(map[string]any), schema.(map[string]any), doc, name+".json", &errs)
		for _, e := range errs {
			t.Error(e)
		}
	}
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// validate checks v against the subset of JSON Schema the schemas use:
// $ref to #/$defs, type, const, enum, minimum, required, properties,
// additionalProperties and items.
func validate(root, s map[string]any, v any, at string, errs *[]string) {
	fail := func(format string, a ...any) { *errs = append(*errs, at+": "+fmt.Sprintf(format, a...)) }
	if ref, ok := s["$ref"].(string); ok {
		def := root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")]
		if def == nil {
			fail("unknown $ref %s", ref)
			return
		}
		s = def.(map[string]any)
	}
	if t, ok := s["type"]; ok && !hasType(t, v) {
		fail("%v is not of type %v", v, t)
		return
	}
	if c, ok := s["const"]; ok && c != v {
		fail("%v, want %v", v, c)
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || x == v
		}
		if !found {
			fail("%v is not one of %v", v, e)
		}
	}
	if m, ok := s["minimum"].(float64); ok {
		if x, isNum := v.(float64); isNum && x < m {
			fail("%v below the minimum %v", x, m)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		required, _ := s["required"].([]any)
		for _, r := range required {
			if _, ok := v[r.(string)]; !ok {
				fail("required field %s missing", r)
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := props[k]; ok {
				validate(root, p.(map[string]any), v[k], at+"."+k, errs)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					fail("field %s is not in the schema", k)
				}
			case map[string]any:
				validate(root, ap, v[k], at+"."+k, errs)
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range v {
				validate(root, items, x, fmt.Sprintf("%s[%d]", at, i), errs)
			}
		}
	}
}

// hasType reports whether v, as encoding/json decodes it, is of the
// schema type t (a name or a list of names).
func hasType(t, v any) bool {
	if list, ok := t.([]any); ok {
		for _, x := range list {
			if hasType(x, v) {
				return true
			}
		}
		return false
	}
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		x, ok := v.(float64)
		return ok && x == math.Trunc(x)
	}
	return false
}

// TestValidateCatches: the validator finds an undeclared field, a missing
// required one and a wrong type, so TestOutputsMatchSchemas can fail.
func TestValidateCatches(t *testing.T) {
	schema := readJSON(t, filepath.Join("..", "..", "docs", "schema", "tracks.schema.json")).(map[string]any)
	for _, tc := range []struct{ doc, want string }{
		{`{"format_version":1,"images":[],"tracks":[],"extra":1}`, "field extra is not in the schema"},
		{`{"format_version":1,"images":[]}`, "required field tracks missing"},
		{`{"format_version":2,"images":[],"tracks":[]}`, "want 1"},
		{`{"format_version":1,"images":[],"tracks":[{"id":1,"observations":[{"image":"a","keypoint":1.5,"x":0,"y":0}]}]}`, "not of type integer"},
	} {
		var v any
		json.Unmarshal([]byte(tc.doc), &v)
		var errs []string
		validate(schema, schema, v, "doc", &errs)
		if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
			t.Errorf("%s: errors %q, want %q", tc.doc, errs, tc.want)
		}
	}
}
