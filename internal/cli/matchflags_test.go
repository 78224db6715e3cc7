package cli

import (
	"io"
	"reflect"
	"testing"

	"github.com/clearmatch/clearmatch/pipeline"
)

// TestMatchFlagsDefaultOptions: `clearmatch match` with no tuning flags
// runs exactly pipeline.DefaultOptions (the caches aside, which the CLI
// places and which never change a result), so the library and the CLI
// share one set of defaults.
func TestMatchFlagsDefaultOptions(t *testing.T) {
	var o matchOptions
	fs := newFlags("match", matchUsage, io.Discard)
	o.addFlags(fs)
	if _, err := parseInterleaved(fs, []string{"photos", "-out", "run"}); err != nil {
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
	fs := newFlags("match", matchUsage, io.Discard)
	o.addFlags(fs)
	args := []string{"photos", "-out", "run", "-complete=false", "-refine=false", "-weak-pairs", "0", "-rotation-loops", "0",
		"-self-calibrate=false", "-reproj-filter", "0", "-reproj-extend=false", "-verify=false", "-guided"}
	if _, err := parseInterleaved(fs, args); err != nil {
		t.Fatal(err)
	}
	if err := o.check([]string{"photos"}); err != nil {
		t.Fatal(err)
	}
	tr, v := o.pipe.Tracks, o.pipe.Verification
	if !tr.Complete.Off || !tr.Refine.Off || !tr.Weak.Off || !tr.Weak.Loops.Off || !tr.Calibrate.Off || !tr.Reproj.Off || !tr.Reproj.NoExtend || !v.Off || v.NoGuided {
		t.Errorf("tracks %+v, verification off %v, no guided %v", tr, v.Off, v.NoGuided)
	}
}
