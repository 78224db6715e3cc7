package match

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
)

// TestMatchFlagsDefaultOptions: `clearmatch match` with no tuning flags
// runs exactly pipeline.DefaultOptions (the caches aside, which the CLI
// places and which never change a result), so the library and the CLI
// share one set of defaults.
func TestMatchFlagsDefaultOptions(t *testing.T) {
	var o matchOptions
	fs := cmdline.NewFlags("match", matchUsage, io.Discard)
	o.addFlags(fs)
	if _, err := cmdline.ParseInterleaved(fs, []string{"photos", "-out", "run"}); err != nil {
		t.Fatal(err)
	}
	if err := o.check([]string{"photos"}); err != nil {
		t.Fatal(err)
	}
	got, want := o.pipe, pipeline.DefaultOptions()
	got.Cache = pipeline.CacheOptions{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("match with no flags runs\n%+v\nDefaultOptions is\n%+v", got, want)
	}
}

// TestMatchFlagsOff: the flags whose 0 or false turns a stage off do.
func TestMatchFlagsOff(t *testing.T) {
	var o matchOptions
	fs := cmdline.NewFlags("match", matchUsage, io.Discard)
	o.addFlags(fs)
	args := []string{"photos", "-out", "run", "-complete=false", "-refine=false", "-weak-pairs", "0", "-rotation-loops", "0",
		"-self-calibrate=false", "-reproj-filter", "0", "-reproj-extend=false", "-verify=false", "-guided",
		"-max-features", "0", "-max-dim", "0", "-completion-rounds", "0", "-completion-min-inlier-ratio", "0",
		"-completion-min-chains", "0", "-max-component", "0", "-rootsift=false"}
	if _, err := cmdline.ParseInterleaved(fs, args); err != nil {
		t.Fatal(err)
	}
	if err := o.check([]string{"photos"}); err != nil {
		t.Fatal(err)
	}
	tr, v := o.pipe.Tracks, o.pipe.Verification
	if !tr.Complete.Off || !tr.Refine.Off || !tr.Weak.Off || !tr.Weak.Loops.Off || !tr.Calibrate.Off || !tr.Reproj.Off || !tr.Reproj.NoExtend || !v.Off || !v.Guided {
		t.Errorf("tracks %+v, verification off %v, guided %v", tr, v.Off, v.Guided)
	}
	// A flag's 0 that means none reaches the stage as none, not as the
	// option's default (an option's 0).
	p := o.pipe
	f, c := p.Features.Extraction(), p.Solve.Clear()
	if f.MaxFeatures != 0 || f.MaxDim != 0 || p.Pairs.CompletionRounds() != 0 || p.Pairs.CompletionChains() != 0 ||
		p.Pairs.CompletionMinInlierRatio >= 0 || c.MaxComponent != 0 || !p.Matching.NoRootSIFT {
		t.Errorf("features %+v, pairs %+v, solve %+v, matching %+v", f, p.Pairs, c, p.Matching)
	}
}

// TestMatchHelp: -h shows the common flags and points to -h all, which
// shows every flag.
func TestMatchHelp(t *testing.T) {
	_, short, _ := runCmd(t, "", "match", "-h")
	_, all, _ := runCmd(t, "", "match", "-h", "all")
	for _, f := range matchCommon {
		if !strings.Contains(short, "  -"+f+" ") && !strings.Contains(short, "  -"+f+"\n") {
			t.Errorf("match -h lacks -%s", f)
		}
	}
	if strings.Contains(short, "-complete-angle") || !strings.Contains(short, "clearmatch match -h all") {
		t.Errorf("match -h shows tuning flags or no pointer to them:\n%s", short)
	}
	if !strings.Contains(all, "-complete-angle") || !strings.Contains(all, "-max-dim") {
		t.Errorf("match -h all lacks flags:\n%s", all)
	}
}

// TestParseIntrinsics: fx,fy,cx,cy inline, or a file of four numbers or
// a 3×3 K; anything else is a usage error naming the value or file.
func TestParseIntrinsics(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	want := geom.Intrinsics{Fx: 2905.88, Fy: 2905.88, Cx: 1416, Cy: 1064}
	for _, tc := range []struct {
		in      string
		want    geom.Intrinsics
		wantErr string
	}{
		{"2905.88,2905.88,1416,1064", want, ""},
		{file("K.txt", "2905.88 0 1416 \n0 2905.88 1064\n0 0 1"), want, ""},
		{file("K2.txt", "[5811.76, 0, 2832; 0, 5811.76, 2128; 0, 0, 2]"), want, ""},
		{file("four.txt", "2905.88 2905.88 1416 1064\n"), want, ""},
		{file("skew.txt", "1000 3 500\n0 1000 400\n0 0 1"), geom.Intrinsics{}, "K has skew 3"},
		{file("notk.txt", "1000 0 500\n0 1000 400\n1 0 1"), geom.Intrinsics{}, "not a camera matrix K"},
		{file("five.txt", "1 2 3 4 5"), geom.Intrinsics{}, "5 numbers"},
		{file("word.txt", "1000 0 abc\n0 1000 400\n0 0 1"), geom.Intrinsics{}, `"abc" is not a number`},
		{"1000,0,500,400", geom.Intrinsics{}, "0 is not a valid fy"},
		{filepath.Join(dir, "missing.txt"), geom.Intrinsics{}, "want fx,fy,cx,cy or a file"},
		{dir, geom.Intrinsics{}, "not a text file"},
		{"/dev/zero", geom.Intrinsics{}, "not a text file"},
	} {
		got, err := parseIntrinsics(tc.in)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}
