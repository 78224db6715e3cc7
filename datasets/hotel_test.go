package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// writeHotel makes a miniature Hotel tree: all frames present (empty image
// files suffice for the loader) and landmark files from lines.
func writeHotel(t *testing.T, lines func(k int) string) string {
	dir := t.TempDir()
	for k := 1; k <= HotelFrames; k++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("hotel.seq%d.png", k-1)), nil, 0o644)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("hotel%d.txt", k)), []byte(lines(k)), 0o644)
	}
	return dir
}

func goodLines(k int) string {
	var b strings.Builder
	for r := 0; r < HotelLandmarks; r++ {
		fmt.Fprintf(&b, "%d %d\n", 10+r, 20+k)
	}
	return b.String()
}

func TestLoadHotel(t *testing.T) {
	dir := writeHotel(t, goodLines)
	frames, err := LoadHotel(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != HotelFrames || filepath.Base(frames[0].Image) != "hotel.seq0.png" {
		t.Fatalf("frames %d, first %s", len(frames), frames[0].Image)
	}
	// hotel1.txt belongs to hotel.seq0.png; 1-based (10, 21) is 0-based (9, 20).
	if p := frames[0].Landmarks[0]; p != (geom.Point{X: 9, Y: 20}) {
		t.Errorf("first landmark %v, want {9 20}", p)
	}
}

func TestLoadHotelErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines func(k int) string
		want  string
	}{
		{"short", func(k int) string {
			if k == 7 {
				return "1 2\n"
			}
			return goodLines(k)
		}, "hotel7.txt:1: 1 landmarks, want 30"},
		{"not a number", func(k int) string {
			if k == 3 {
				return strings.Replace(goodLines(k), "12 23", "12 x", 1)
			}
			return goodLines(k)
		}, `hotel3.txt:3: "x" is not a number`},
		{"three fields", func(k int) string {
			if k == 2 {
				return "1 2 3\n" + goodLines(k)
			}
			return goodLines(k)
		}, "hotel2.txt:1: want \"x y\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadHotel(writeHotel(t, tc.lines))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	dir := writeHotel(t, goodLines)
	os.Remove(filepath.Join(dir, "hotel.seq50.png"))
	if _, err := LoadHotel(dir); err == nil || !strings.Contains(err.Error(), "missing frame") || !strings.Contains(err.Error(), "hotel.seq50.png") {
		t.Errorf("missing frame: %v", err)
	}
}
