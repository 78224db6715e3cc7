package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/clearmatch/clearmatch/internal/cli"
	"github.com/clearmatch/clearmatch/internal/testenv"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

// TestSameTracksAsMatch: clearmatch-beam on Prism writes the tracks.json
// of `clearmatch match` byte for byte, on photos matched exhaustively and on
// a synthetic strip matched by retrieval with completion's rounds, and
// every pair the final assembly needs comes from the pipeline's workers.
func TestSameTracksAsMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline twice per case")
	}
	ctx := context.Background()
	castle := castlePhotos(t, 4)
	strip := filepath.Join(t.TempDir(), "strip")
	if code := cli.Run(ctx, []string{"synth-photos", "-views", "24", "-width", "640", "-height", "480", "-out", strip}, nil, io.Discard, io.Discard); code != 0 {
		t.Fatalf("synth-photos: exit %d", code)
	}
	// Rank the strip's 24 images in blocks of 5, so that ranking merges
	// blocks as it does past 128 images.
	defer func(b int) { rankBlock = b }(rankBlock)
	rankBlock = 5
	cases := []struct {
		name string
		args []string
	}{
		{"castle, exhaustive", []string{castle, "-max-dim", "640"}},
		{"strip, retrieval and completion", []string{filepath.Join(strip, "images"), "-pairs", "retrieval", "-retrieval-k", "4"}},
		// A chain test that 2 of completion's 15 pairs fail: the workers
		// must reject the same pairs as the assembly, or it misses the cache.
		{"strip, completion's chain test", []string{filepath.Join(strip, "images"), "-pairs", "retrieval", "-retrieval-k", "4", "-completion-min-chains", "100"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			want, got := filepath.Join(dir, "match"), filepath.Join(dir, "beam")
			if code := cli.Run(ctx, append([]string{"match", "-out", want, "-cache", ""}, c.args...), nil, io.Discard, io.Discard); code != 0 {
				t.Fatalf("match: exit %d", code)
			}
			var stderr bytes.Buffer
			if err := run(ctx, append([]string{"-out", got, "-cache", filepath.Join(dir, "cache")}, c.args...), io.Discard, &stderr); err != nil {
				t.Fatalf("clearmatch-beam: %v\n%s", err, stderr.String())
			}
			a, _ := os.ReadFile(filepath.Join(want, "tracks.json"))
			b, err := os.ReadFile(filepath.Join(got, "tracks.json"))
			if err != nil || len(a) == 0 || !bytes.Equal(a, b) {
				t.Fatalf("tracks.json differs from match's (%d and %d bytes, %v)", len(a), len(b), err)
			}
			var rep struct {
				Hits      struct{ Matches, Verifications int } `json:"pair_cache_hits"`
				Pairs     []json.RawMessage
				Selection struct {
					Sources map[string]struct{ Matched int }
				} `json:"pair_selection"`
			}
			if b, err := os.ReadFile(filepath.Join(got, "report.json")); err != nil || json.Unmarshal(b, &rep) != nil {
				t.Fatalf("report.json: %v", err)
			}
			if n := len(rep.Pairs); n == 0 || rep.Hits.Matches != n || rep.Hits.Verifications != n {
				t.Errorf("the final assembly found %+v of %d pairs in the cache, want every one", rep.Hits, n)
			}
			// The workers match the assembly's pairs, no more: their
			// completion rounds propose and reject what match's do.
			if m := regexp.MustCompile(`beam: .* ([0-9]+) pairs matched`).FindStringSubmatch(stderr.String()); m == nil || m[1] != strconv.Itoa(len(rep.Pairs)) {
				t.Errorf("the workers matched other pairs than the assembly's %d (%q)", len(rep.Pairs), m)
			}
			if c.args[1] == "-pairs" && rep.Selection.Sources["completion"].Matched == 0 {
				t.Errorf("no completion round ran: %+v", rep.Selection)
			}
			if !strings.Contains(stderr.String(), "beam: CLEAR solved in parts") {
				t.Errorf("CLEAR was not solved in the pipeline:\n%s", stderr.String())
			}
			if !regexp.MustCompile(`beam: refinement of [0-9]+ tracks on the workers: largest bundle state [0-9.]+ [KMG]iB \((templates|align); per stage: templates [0-9.]+ [KMG]iB, align [0-9.]+ [KMG]iB\)`).MatchString(stderr.String()) {
				t.Errorf("the keypoints were not refined in the pipeline:\n%s", stderr.String())
			}
			for _, k := range []string{"universe_size", "components", "largest_component", "split_components", "cut_associations", "tracks", "unconfirmed_observations", "reproj_filter"} {
				if a, b := reportField(t, want, k), reportField(t, got, k); a != b {
					t.Errorf("report.json's %s: match %s, clearmatch-beam %s", k, a, b)
				}
			}
			// The runner reports the bundles' state and the elements' sizes:
			// a bundle that holds features or codes holds more than any element.
			// With retrieval, its stages report too.
			solve := `components [0-9.]+ [KM]iB, parts [0-9.]+ [KM]iB, cut [0-9.]+ [KM]iB, costs [0-9.]+ [KM]iB, assign [0-9.]+ [KM]iB`
			stages := `extract [0-9.]+ [KM]iB, plan [^,]+, pairs [^,]+, (completion [^,]+, )?` + solve
			if c.args[1] == "-pairs" {
				stages = `extract [0-9.]+ [KM]iB, plan [^,]+, codes [0-9.]+ [KM]iB, rank [0-9.]+ [KM]iB, select [0-9.]+ (B|KiB), pairs [^,]+, completion [^,]+, chains [^,]+, ` + solve
			}
			state := regexp.MustCompile(`largest bundle state ([0-9.]+ [KMG]iB) \((plan|pairs); per stage: ` + stages + `\), ([0-9.]+ (B|KiB|MiB)) between transforms`)
			if m := state.FindStringSubmatch(stderr.String()); m == nil {
				t.Errorf("no bundle state from the runner's metrics, or not the plan's or a pair batch's:\n%s", stderr.String())
			}
		})
	}
}

// reportField is report.json's field k in folder dir, as JSON text.
func reportField(t *testing.T, dir, k string) string {
	t.Helper()
	var rep map[string]json.RawMessage
	if b, err := os.ReadFile(filepath.Join(dir, "report.json")); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("%s/report.json: %v", dir, err)
	}
	return string(rep[k])
}

// castlePhotos is a folder of links to sceaux-castle's first n photos.
func castlePhotos(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for k := range n {
		f := fmt.Sprintf("100_%d.JPG", 7100+k)
		src := testenv.Require(t, filepath.Join(testenv.DataDir(), "sceaux-castle", f))
		if err := os.Symlink(src, filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
