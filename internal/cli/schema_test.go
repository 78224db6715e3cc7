package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/internal/testenv"
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
		schema := testenv.ReadJSON(t, filepath.Join("..", "..", "docs", "schema", name+".schema.json"))
		doc := testenv.ReadJSON(t, filepath.Join(out, name+".json"))
		var errs []string
		testenv.ValidateJSON(schema.(map[string]any), schema.(map[string]any), doc, name+".json", &errs)
		for _, e := range errs {
			t.Error(e)
		}
	}
}

// TestValidateCatches: the validator finds an undeclared field, a missing
// required one and a wrong type, so TestOutputsMatchSchemas can fail.
func TestValidateCatches(t *testing.T) {
	schema := testenv.ReadJSON(t, filepath.Join("..", "..", "docs", "schema", "tracks.schema.json")).(map[string]any)
	for _, tc := range []struct{ doc, want string }{
		{`{"format_version":1,"images":[],"tracks":[],"extra":1}`, "field extra is not in the schema"},
		{`{"format_version":1,"images":[]}`, "required field tracks missing"},
		{`{"format_version":2,"images":[],"tracks":[]}`, "want 1"},
		{`{"format_version":1,"images":[],"tracks":[{"id":1,"observations":[{"image":"a","keypoint":1.5,"x":0,"y":0}]}]}`, "not of type integer"},
	} {
		var v any
		json.Unmarshal([]byte(tc.doc), &v)
		var errs []string
		testenv.ValidateJSON(schema, schema, v, "doc", &errs)
		if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
			t.Errorf("%s: errors %q, want %q", tc.doc, errs, tc.want)
		}
	}
}
