// Package datasets reads the datasets clearmatch is measured on: the CLEAR
// paper's CMU Hotel sequence (labelled landmarks) and Oxford Graffiti
// sequence (homographies), the registry the CLI fetches them by, the
// synthetic photo strip of the scale benchmarks, and Strecha's
// ground-truth cameras (ReadStrechaCameras: fountain-p11, herz-jesus-p25).
// It is pure Go and checks what it reads: errors name the file and line.
package datasets

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/geom"
)

// HotelFrames and HotelLandmarks are the size of the CMU Hotel benchmark.
const (
	HotelFrames    = 101
	HotelLandmarks = 30
)

// HotelFrame is one frame of the Hotel sequence: its image file and its
// landmarks, in the order of the labelling file (line r is landmark r in
// every frame, which is the ground truth).
type HotelFrame struct {
	Image     string // path of hotel.seq{k-1}.png
	Landmarks []geom.Point
}

// LoadHotel reads the Hotel benchmark from dir (the cmu-hotel folder):
// hotel{k}.txt belongs to frame hotel.seq{k-1}.png. The labels are 1-based
// pixel coordinates; this is the one place that converts them to 0-based
// coordinates (x − 1, y − 1).
func LoadHotel(dir string) ([]HotelFrame, error) {
	frames := make([]HotelFrame, HotelFrames)
	for k := 1; k <= HotelFrames; k++ {
		img := filepath.Join(dir, fmt.Sprintf("hotel.seq%d.png", k-1))
		if _, err := os.Stat(img); err != nil {
			return nil, fmt.Errorf("hotel: missing frame: %w", err)
		}
		pts, err := readPoints(filepath.Join(dir, fmt.Sprintf("hotel%d.txt", k)), HotelLandmarks)
		if err != nil {
			return nil, err
		}
		frames[k-1] = HotelFrame{Image: img, Landmarks: pts}
	}
	return frames, nil
}

// readPoints reads want lines of "x y" (1-based) and returns 0-based points.
func readPoints(path string, want int) ([]geom.Point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hotel: %w", err)
	}
	defer f.Close()
	var pts []geom.Point
	sc := bufio.NewScanner(f)
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 2 {
			return nil, fmt.Errorf("%s:%d: want \"x y\", got %q", path, ln, line)
		}
		var xy [2]float64
		for i, s := range fs {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:%d: %q is not a number", path, ln, s)
			}
			xy[i] = v
		}
		pts = append(pts, geom.Point{X: xy[0] - 1, Y: xy[1] - 1})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(pts) != want {
		return nil, fmt.Errorf("%s:%d: %d landmarks, want %d", path, ln, len(pts), want)
	}
	return pts, nil
}
