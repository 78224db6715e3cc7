package datasets

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/internal/testenv"
)

func writeGraffiti(t *testing.T, h func(k int) string) string {
	dir := t.TempDir()
	for k := 1; k <= GraffitiImages; k++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("img%d.ppm", k)), nil, 0o644)
		if k > 1 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("H1to%dp.txt", k)), []byte(h(k)), 0o644)
		}
	}
	return dir
}

// scaleH is a homography scaling by k, so H(i→j) scales by j/i.
func scaleH(k int) string { return fmt.Sprintf("%d 0 0\n0 %d 0\n0 0 1\n", k, k) }

func TestLoadGraffiti(t *testing.T) {
	g, err := LoadGraffiti(writeGraffiti(t, scaleH))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Images) != 6 || g.H1to[0] != Identity {
		t.Fatalf("%d images, H1to1 %v", len(g.Images), g.H1to[0])
	}
	// H(2→4) (0-based 1→3) scales by 4/2.
	x, y, ok := g.H(1, 3).Apply(10, 5)
	if !ok || math.Abs(x-20) > 1e-12 || math.Abs(y-10) > 1e-12 {
		t.Errorf("H(2→4)(10,5) = (%v, %v)", x, y)
	}
	if g.H(2, 2) != Identity {
		x, y, _ := g.H(2, 2).Apply(3, 7)
		if math.Abs(x-3) > 1e-12 || math.Abs(y-7) > 1e-12 {
			t.Errorf("H(i→i) is not the identity: %v", g.H(2, 2))
		}
	}
}

func TestLoadGraffitiErrors(t *testing.T) {
	for _, tc := range []struct {
		name, bad, want string
	}{
		{"singular", "1 2 3\n2 4 6\n0 0 1\n", "H1to3p.txt:3: singular homography"},
		{"nan", "1 0 0\n0 NaN 0\n0 0 1\n", `H1to3p.txt:2: "NaN" is not a finite number`},
		{"inf", "1 0 0\n0 1 0\n+Inf 0 1\n", `H1to3p.txt:3: "+Inf" is not a finite number`},
		{"short row", "1 0 0\n0 1\n0 0 1\n", "H1to3p.txt:2: want three numbers, got 2"},
		{"two rows", "1 0 0\n0 1 0\n", "H1to3p.txt:2: 2 rows, want 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadGraffiti(writeGraffiti(t, func(k int) string {
				if k == 3 {
					return tc.bad
				}
				return scaleH(k)
			}))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	dir := writeGraffiti(t, scaleH)
	os.Remove(filepath.Join(dir, "img5.ppm"))
	if _, err := LoadGraffiti(dir); err == nil || !strings.Contains(err.Error(), "img5.ppm") {
		t.Errorf("missing image: %v", err)
	}
}

func TestRealGraffitiHomographies(t *testing.T) {
	g, err := LoadGraffiti(testenv.Require(t, filepath.Join(testenv.DataDir(), "graffiti")))
	if err != nil {
		t.Fatal(err)
	}
	// Consistency: H(i→k) = H(j→k)·H(i→j) on a point.
	x0, y0 := 300.0, 200.0
	x1, y1, _ := g.H(1, 4).Apply(x0, y0)
	xa, ya, _ := g.H(1, 2).Apply(x0, y0)
	x2, y2, _ := g.H(2, 4).Apply(xa, ya)
	if math.Hypot(x1-x2, y1-y2) > 1e-6 {
		t.Errorf("homographies do not compose: (%v,%v) vs (%v,%v)", x1, y1, x2, y2)
	}
}

// TestHomographySingularIsRelative: singularity is judged against the
// matrix's own scale, so the same homography scaled by 1e-5 (or 1e5) loads,
// and a nearly rank-2 one is refused at any scale.
func TestHomographySingularIsRelative(t *testing.T) {
	for _, tc := range []struct {
		h    string
		want bool // loads
	}{
		{"8.7977e-06 3.1245e-06 -3.9259e-04\n-1.8389e-06 1.0615e-05 -1.6126e-04\n-2.0003e-11 4.6778e-11 1e-05\n", true},
		{"87977 31245 -3925900\n-18389 106150 -1612600\n-0.0002 0.00046778 100000\n", true},
		{"1e-5 2e-5 3e-5\n2e-5 4e-5 6e-5\n0 0 1e-5\n", false},
		{"1 2 3\n2 4 6.000000000000001\n0 0 1\n", false},
	} {
		_, err := LoadGraffiti(writeGraffiti(t, func(k int) string {
			if k == 3 {
				return tc.h
			}
			return scaleH(k)
		}))
		if (err == nil) != tc.want {
			t.Errorf("%q: error %v, want loads=%v", tc.h, err, tc.want)
		}
	}
}
