package colmap

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// TestDatabaseRoundTrip: what Write puts in a database, ReadMatches reads
// back (keypoints 0.5 less, OpenCV's convention), and bad input is
// refused before a file is left behind.
func TestDatabaseRoundTrip(t *testing.T) {
	feats := func(n int) func() ([]Keypoint, []byte, error) {
		return func() ([]Keypoint, []byte, error) {
			kps := make([]Keypoint, n)
			for k := range kps {
				kps[k] = Keypoint{X: float32(k) + 0.5, Y: 10.5, A11: 2, A22: 2}
			}
			return kps, make([]byte, DescriptorSize*n), nil
		}
	}
	db := Database{
		Cameras: []Camera{{Model: "SIMPLE_RADIAL", Width: 64, Height: 48, Params: []float64{70, 32, 24, 0}}},
		Images:  []Image{{Name: "a.jpg", Features: feats(3)}, {Name: "b c.jpg", Features: feats(4)}},
		Pairs:   []Pair{{I: 0, J: 1, Config: Uncalibrated, F: [9]float64{0, 0, 0, 0, 0, -1, 0, 1, 0}, Matches: [][2]uint32{{2, 3}, {0, 1}}}},
	}
	path := filepath.Join(t.TempDir(), "database.db")
	if err := db.Write(path); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(path); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second Write: %v", err)
	}
	m, err := ReadMatches(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Names, ",") != "a.jpg,b c.jpg" || m.Widths[1] != 64 || m.Points[1][3] != (geom.Point{X: 3, Y: 10}) {
		t.Errorf("images %v %v, points %v", m.Names, m.Widths, m.Points)
	}
	if got := m.Pairs[[2]int{0, 1}]; len(got) != 2 || got[0] != [2]int{0, 1} || got[1] != [2]int{2, 3} {
		t.Errorf("matches %v", got)
	}
	for name, bad := range map[string]Database{
		"no camera":    {Images: []Image{{Name: "a.jpg", Camera: 0, Features: feats(1)}}},
		"bad model":    {Cameras: []Camera{{Model: "FISHEYE?"}}},
		"out of range": {Cameras: db.Cameras, Images: db.Images, Pairs: []Pair{{I: 0, J: 1, Matches: [][2]uint32{{3, 0}}}}},
		"pair order":   {Cameras: db.Cameras, Images: db.Images, Pairs: []Pair{{I: 1, J: 0}}},
	} {
		p := filepath.Join(t.TempDir(), "database.db")
		if err := bad.Write(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
		if _, err := ReadMatches(p); err == nil {
			t.Errorf("%s: a failed Write left a database", name)
		}
	}
}

func TestPairID(t *testing.T) {
	if PairID(1, 2) != 2147483649 || PairID(2, 1) != PairID(1, 2) {
		t.Errorf("PairID(1, 2) = %d", PairID(1, 2))
	}
}
