package match

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pipeline"
)

// TestRunAgreesWithMatch checks that the library's pipeline.Run, given
// the options a set of flags stands for, writes the tracks `clearmatch
// match` writes: every step of the command is a stage of the library.
func TestRunAgreesWithMatch(t *testing.T) {
	dir := filepath.Join(dataDirForTest(t), "graffiti")
	k := geom.Intrinsics{Fx: 700, Fy: 700, Cx: 399.5, Cy: 319.5}
	for _, tc := range []struct {
		name   string
		flags  []string
		camera geom.Intrinsics
		set    func(o *pipeline.Options)
	}{
		{"defaults", nil, geom.Intrinsics{}, func(o *pipeline.Options) {}},
		{"min-track 3", []string{"-min-track", "3"}, geom.Intrinsics{}, func(o *pipeline.Options) { o.Tracks.MinTrack.Min = 3 }},
		{"intrinsics, min-track 4", []string{"-intrinsics", "700,700,399.5,319.5", "-min-track", "4"}, k, func(o *pipeline.Options) { o.Tracks.MinTrack.Min = 4 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"match", dir, "-out", out, "-cache", "", "-max-dim", "400"}, tc.flags...)
			if code, _, stderr := runCmd(t, "", args...); code != 0 {
				t.Fatalf("clearmatch %v: exit %d\n%s", args, code, stderr)
			}
			want, err := os.ReadFile(filepath.Join(out, "tracks.json"))
			if err != nil {
				t.Fatal(err)
			}
			images, err := pipeline.Images([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			o := pipeline.DefaultOptions()
			o.Features.MaxDim = 400
			tc.set(&o)
			res, err := pipeline.Run(context.Background(), images, tc.camera, o)
			if err != nil {
				t.Fatal(err)
			}
			tr, _ := export.Build(res.Output(), res.Item)
			var got bytes.Buffer
			if err := export.WriteTracks(&got, tr); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("pipeline.Run's tracks.json (%d bytes, %d tracks) differs from match's (%d bytes)", got.Len(), len(tr.Tracks), len(want))
			}
		})
	}
}
