package main

import (
	"encoding/json"
	"github.com/clearmatch/clearmatch/internal/testenv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func dataDirForTest(t *testing.T) string { return testenv.Require(t, testenv.DataDir()) }

type rowJSON struct {
	Precision, Recall, F1     float64
	Correct, Returned, GT     int64
	CycleConsistent, Distinct bool
}

func runEvalTest(t *testing.T, dataset string) (map[string]json.RawMessage, map[string]rowJSON, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), dataset)
	code, stdout, stderr := runCmd(t, "", "eval", dataset, "-data", dataDirForTest(t), "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := "clear clear_min_track closure dataset images input input_components input_largest_component observations pruned_closure timing_s universe_size"
	if strings.Join(keys, " ") != want {
		t.Errorf("report.json keys %v, want %s", keys, want)
	}
	rows := map[string]rowJSON{}
	for _, name := range []string{"input", "closure", "pruned_closure", "clear", "clear_min_track"} {
		var r struct {
			Precision, Recall, F1 float64
			Correct, Returned, GT int64
			CC                    bool `json:"cycle_consistent"`
			D                     bool `json:"distinct"`
		}
		if err := json.Unmarshal(top[name], &r); err != nil {
			t.Fatal(err)
		}
		rows[name] = rowJSON{r.Precision, r.Recall, r.F1, r.Correct, r.Returned, r.GT, r.CC, r.D}
	}
	for _, f := range []string{"problem.txt", "overlays"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%s\n%s", dataset, stdout)
	return top, rows, out
}

func checkClearBeatsInput(t *testing.T, rows map[string]rowJSON) {
	t.Helper()
	in, cl, clo := rows["input"], rows["clear"], rows["closure"]
	if !(cl.Precision > in.Precision) {
		t.Errorf("CLEAR precision %.3f not above the input's %.3f", cl.Precision, in.Precision)
	}
	if !(cl.Precision > clo.Precision+0.2) {
		t.Errorf("CLEAR precision %.3f not far above the closure's %.3f", cl.Precision, clo.Precision)
	}
	if !cl.CycleConsistent || !cl.Distinct || !rows["clear_min_track"].CycleConsistent {
		t.Errorf("CLEAR output not consistent and distinct: %+v", cl)
	}
	if in.CycleConsistent {
		t.Errorf("the input is reported cycle consistent")
	}
	if in.GT != cl.GT || in.GT == 0 {
		t.Errorf("ground-truth pairs differ between rows: %d vs %d", in.GT, cl.GT)
	}
}

func TestEvalGraffiti(t *testing.T) {
	top, rows, out := runEvalTest(t, "graffiti")
	checkClearBeatsInput(t, rows)
	var imgs []struct {
		Name                   string
		Features, Observations int
	}
	json.Unmarshal(top["images"], &imgs)
	if len(imgs) != 6 {
		t.Fatalf("%d images", len(imgs))
	}
	for _, im := range imgs {
		if im.Observations < 100 || im.Observations > im.Features {
			t.Errorf("%s: %d of %d features kept", im.Name, im.Observations, im.Features)
		}
	}
	for _, f := range []string{"pair_0_1_input.png", "pair_0_1_clear.png", "items_img1.png", "items_img6.png"} {
		if _, err := os.Stat(filepath.Join(out, "overlays", f)); err != nil {
			t.Error(err)
		}
	}
}

func TestEvalHotel(t *testing.T) {
	if testing.Short() {
		t.Skip("101 frames")
	}
	top, rows, _ := runEvalTest(t, "hotel")
	checkClearBeatsInput(t, rows)
	var obs int
	json.Unmarshal(top["observations"], &obs)
	if obs != 3030 || rows["input"].Precision < 0.85 {
		t.Errorf("%d observations, input precision %.3f", obs, rows["input"].Precision)
	}
}

func TestEvalUsage(t *testing.T) {
	if code, _, stderr := runCmd(t, "", "eval", "books"); code != 2 || !strings.Contains(stderr, "hotel|graffiti") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCmd(t, "", "eval", "hotel", "-data", t.TempDir(), "-out", filepath.Join(t.TempDir(), "o")); code != 1 || !strings.Contains(stderr, "missing frame") {
		t.Errorf("missing data: exit %d, %q", code, stderr)
	}
}
