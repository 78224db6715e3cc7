package paper

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/internal/testenv"
)

func dataDirForTest(t *testing.T) string { return testenv.Require(t, testenv.DataDir()) }

type rowJSON struct {
	Precision, Recall, F1     float64
	Correct, Returned, GT     int64
	CycleConsistent, Distinct bool
}

// runEvalTest runs eval on dataset and returns report.json's top level,
// the rows of each protocol and the output folder.
func runEvalTest(t *testing.T, dataset string) (map[string]json.RawMessage, map[string]map[string]rowJSON, string) {
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
	if want := "dataset images observations protocols"; strings.Join(keys, " ") != want {
		t.Errorf("report.json keys %v, want %s", keys, want)
	}
	var protocols []map[string]json.RawMessage
	if err := json.Unmarshal(top["protocols"], &protocols); err != nil {
		t.Fatal(err)
	}
	all := map[string]map[string]rowJSON{}
	for _, p := range protocols {
		var name string
		json.Unmarshal(p["protocol"], &name)
		rows := map[string]rowJSON{}
		for _, row := range []string{"ratio_matches", "input", "closure", "pruned_closure", "clear", "clear_min_track"} {
			var r struct {
				Precision, Recall, F1 float64
				Correct, Returned, GT int64
				CC                    bool `json:"cycle_consistent"`
				D                     bool `json:"distinct"`
			}
			if err := json.Unmarshal(p[row], &r); err != nil {
				t.Fatalf("%s %s: %v", name, row, err)
			}
			rows[row] = rowJSON{r.Precision, r.Recall, r.F1, r.Correct, r.Returned, r.GT, r.CC, r.D}
		}
		all[name] = rows
	}
	if len(all["paper"]) == 0 || len(all["verified"]) == 0 {
		t.Fatalf("report.json lacks a protocol: %v", keys)
	}
	for _, f := range []string{"problem.txt", "overlays"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%s\n%s", dataset, stdout)
	return top, all, out
}

// checkProtocols checks the paper protocol against the figures it has
// always reproduced and the verified protocol against the targets.
func checkProtocols(t *testing.T, all map[string]map[string]rowJSON, paperF1, minF1, minPrecision float64) {
	t.Helper()
	checkClearBeatsInput(t, all["paper"])
	if f1 := all["paper"]["clear"].F1; math.Abs(f1-paperF1) > 0.0015 {
		t.Errorf("paper protocol: CLEAR F1 %.4f, want %.3f", f1, paperF1)
	}
	v := all["verified"]
	if cl := v["clear"]; cl.F1 < minF1 || cl.Precision < minPrecision || !cl.CycleConsistent || !cl.Distinct {
		t.Errorf("verified protocol: CLEAR %+v, want F1 ≥ %v at precision ≥ %v, consistent and distinct", cl, minF1, minPrecision)
	}
	if !(v["input"].Precision > v["ratio_matches"].Precision) {
		t.Errorf("verification did not raise precision: %.3f → %.3f", v["ratio_matches"].Precision, v["input"].Precision)
	}
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
	top, all, out := runEvalTest(t, "graffiti")
	checkProtocols(t, all, 0.531, 0.85, 0.86)
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
	for _, f := range []string{"pair_0_1_input.png", "pair_0_1_clear.png", "items_img1_ppm.png", "items_img6_ppm.png"} {
		if _, err := os.Stat(filepath.Join(out, "overlays", f)); err != nil {
			t.Error(err)
		}
	}
}

func TestEvalHotel(t *testing.T) {
	if testing.Short() {
		t.Skip("101 frames")
	}
	top, all, _ := runEvalTest(t, "hotel")
	checkProtocols(t, all, 0.853, 0.95, 0.99)
	var obs int
	json.Unmarshal(top["observations"], &obs)
	if obs != 3030 || all["paper"]["input"].Precision < 0.85 {
		t.Errorf("%d observations, input precision %.3f", obs, all["paper"]["input"].Precision)
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
