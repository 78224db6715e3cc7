package main

import (
	"image"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/internal/atomicfile"
	"github.com/clearmatch/clearmatch/refine"
)

// TestTemplateFiles: templates written per reference image come back
// bit for bit (or as the outcome that stood for them) for the tracks an
// image asks for, from several files, in the observations' order.
func TestTemplateFiles(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 80, 80))
	for k := range g.Pix {
		g.Pix[k] = uint8(k*29 + k/80*7)
	}
	im := refine.NewImage(g)
	flat := refine.NewImage(image.NewGray(image.Rect(0, 0, 80, 80)))
	dir := t.TempDir()
	frames := []refine.Frame{{X: 40, Y: 40, Scale: 2}, {X: 2, Y: 2, Scale: 2}, {X: 30.5, Y: 50.25, Scale: 1.5, Angle: 33}}
	want := map[trackRef]fetched{}
	for img, src := range map[int]*refine.Image{3: im, 7: flat} {
		ids := []trackRef{{Track: 2}, {Track: 10}, {Track: 11}}
		tmpl, errs := refine.Templates(src, frames, refine.Options{})
		b, err := encodeTemplates(ids, tmpl, errs)
		if err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.Write(refPath(dir, "templates", img), b); err != nil {
			t.Fatal(err)
		}
		for k, id := range ids {
			want[trackRef{id.Track, int64(img)}] = fetched{tmpl[k], errs[k]}
		}
	}
	ask := []trackRef{{11, 3}, {2, 7}, {2, 3}, {10, 3}, {11, 7}}
	got, held, err := fetchTemplates(dir, ask)
	if err != nil {
		t.Fatal(err)
	}
	for k, id := range ask {
		if !reflect.DeepEqual(got[k], want[id]) {
			t.Errorf("track %d of image %d: got %+v, want %+v", id.Track, id.Image, got[k], want[id])
		}
	}
	if want[trackRef{2, 7}].err != refine.ErrFlat || want[trackRef{10, 3}].err != refine.ErrBorder || held <= 0 {
		t.Errorf("the test lacks a flat or a border outcome, or held %d", held)
	}
	if _, _, err := fetchTemplates(dir, []trackRef{{5, 3}}); err == nil || !strings.Contains(err.Error(), "no template for track 5") {
		t.Errorf("a missing track: %v", err)
	}
	b, _ := os.ReadFile(refPath(dir, "templates", 3))
	os.WriteFile(filepath.Join(dir, "templates", "3"), b[:len(b)-3], 0o644)
	if _, _, err := fetchTemplates(dir, []trackRef{{11, 3}}); err == nil {
		t.Error("a cut file gave a template")
	}
}
