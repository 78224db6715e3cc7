package multiway

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/internal/testenv"
)

// TestHotelProblem runs the fast methods on the independent Hotel problem
// of ../shared/testdata/problems, whose truth is known: observation r of
// every frame is landmark r. Each keeps its guarantees, and the
// paper's qualitative findings hold: CLEAR improves on the input's F1,
// Spectral has the lowest recall of the
// partition methods, QuickMatch the highest recall.
func TestHotelProblem(t *testing.T) {
	f, err := os.Open(filepath.Join(testenv.SharedDir(), "testdata", "problems", "hotel-sift.txt"))
	if err != nil {
		testenv.Missing(t, err)
	}
	p, _, err := clear.ReadText(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]int, p.NumObservations())
	for i := range truth {
		truth[i] = i % 30
	}
	view := viewOf(p)
	m, err := EstimateUniverse(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	input := eval.ScorePairs(truth, pairsOf(p))
	sc := map[string]eval.Scores{}
	for _, method := range []string{CLEAR, Spectral, MatchEIG, NMFSync, QuickMatch} {
		r, err := Run(context.Background(), method, p, &Options{Universe: m})
		if err != nil {
			t.Fatal(err)
		}
		sc[method] = eval.ScorePairs(truth, r.Pairs)
		if dist := eval.IsDistinct(view, r.Pairs); !dist || (partition(method) && !eval.IsCycleConsistent(len(truth), r.Pairs)) {
			t.Errorf("%s: a guarantee broken", method)
		}
	}
	if sc[CLEAR].F1 <= input.F1 {
		t.Errorf("CLEAR F1 %.3f, input %.3f", sc[CLEAR].F1, input.F1)
	}
	for _, m := range []string{CLEAR, NMFSync, QuickMatch} {
		if sc[Spectral].Recall >= sc[m].Recall {
			t.Errorf("spectral recall %.3f not below %s's %.3f", sc[Spectral].Recall, m, sc[m].Recall)
		}
		if m != QuickMatch && sc[QuickMatch].Recall <= sc[m].Recall {
			t.Errorf("quickmatch recall %.3f not above %s's %.3f", sc[QuickMatch].Recall, m, sc[m].Recall)
		}
	}
}
