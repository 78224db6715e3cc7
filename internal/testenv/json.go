package testenv

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
)

// ReadJSON reads the JSON file at path as generic values, failing tb when
// it cannot.
func ReadJSON(tb testing.TB, path string) any {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return v
}

// ValidateJSON checks v against the subset of JSON Schema the schemas use:
// $ref to #/$defs, type, const, enum, minimum, required, properties,
// additionalProperties and items.
func ValidateJSON(root, s map[string]any, v any, at string, errs *[]string) {
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
				ValidateJSON(root, p.(map[string]any), v[k], at+"."+k, errs)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					fail("field %s is not in the schema", k)
				}
			case map[string]any:
				ValidateJSON(root, ap, v[k], at+"."+k, errs)
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range v {
				ValidateJSON(root, items, x, fmt.Sprintf("%s[%d]", at, i), errs)
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
