// Command synth-database writes a COLMAP database of a synthetic photo
// strip at the scale of a large project, to measure `clearmatch tracks`
// (scripts/bench-tracks.sh): cameras (PINHOLE, 1600 × 1200, focal 1200 px,
// known) move sideways along a wall of points at 8 to 12 m, turning by up
// to ±2°; each image's keypoints are the points it sees (0.5 px noise)
// and clutter up to -keypoints; each image is paired with the next
// -window images, a pair's matches a share of the points both see plus 5%
// random outliers, the same in matches and two_view_geometries, with no
// geometry and no descriptors (as hloc writes them). Deterministic for a
// seed.
//
//	go run ./scripts/synth-database -images 1000 -keypoints 8000 -window 20 -out synth.db
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/clearmatch/clearmatch/colmap"
)

const (
	width, height = 1600, 1200
	focal         = 1200.0
	step          = 0.1 // metres between cameras
	matchShare    = 0.12
	outlierShare  = 0.05
)

type point struct{ x, y, z float64 }

func main() {
	images := flag.Int("images", 1000, "images")
	perImage := flag.Int("keypoints", 8000, "keypoints per image")
	window := flag.Int("window", 20, "each image is paired with this many next images")
	seed := flag.Uint64("seed", 1, "seed")
	out := flag.String("out", "", "the database to write (must not exist)")
	flag.Parse()
	if *out == "" || *images < 2 || *perImage < 10 || *window < 1 {
		fmt.Fprintln(os.Stderr, "synth-database: want -out, -images ≥ 2, -keypoints ≥ 10, -window ≥ 1")
		os.Exit(2)
	}
	if err := run(*images, *perImage, *window, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "synth-database:", err)
		os.Exit(1)
	}
}

func run(n, perImage, window int, seed uint64, out string) error {
	rng := rand.New(rand.NewPCG(seed, 1))
	// The wall: about 60% of an image's keypoints are points it sees.
	span := float64(n)*step + 16
	visibleArea := (2 * 10 * (width / 2) / focal) * (2 * 10 * (height / 2) / focal)
	density := 0.6 * float64(perImage) / visibleArea
	pts := make([]point, int(density*span*(2*10*(height/2)/focal)))
	for k := range pts {
		pts[k] = point{x: rng.Float64()*span - 8, y: (rng.Float64() - 0.5) * 2 * 10 * (height / 2) / focal, z: 8 + 4*rng.Float64()}
	}
	slices.SortFunc(pts, func(a, b point) int { return cmpFloat(a.x, b.x) })
	db := colmap.Database{Cameras: []colmap.Camera{{Model: "PINHOLE", Width: width, Height: height,
		Params: []float64{focal, focal, width / 2, height / 2}, PriorFocal: true}}}
	// seen[i] are the points image i sees, in increasing order, with
	// their keypoints.
	seen := make([][]seenPoint, n)
	kps := make([][]colmap.Keypoint, n)
	for i := range n {
		kps[i], seen[i] = view(i, pts, perImage, rng)
		k := kps[i]
		db.Images = append(db.Images, colmap.Image{Name: fmt.Sprintf("strip_%04d.jpg", i), Features: func() ([]colmap.Keypoint, []byte, error) { return k, nil, nil }})
	}
	for i := range n {
		for j := i + 1; j <= min(n-1, i+window); j++ {
			var ms [][2]uint32
			for a, b := 0, 0; a < len(seen[i]) && b < len(seen[j]); {
				switch pa, pb := seen[i][a], seen[j][b]; {
				case pa.point < pb.point:
					a++
				case pa.point > pb.point:
					b++
				default:
					if rng.Float64() < matchShare {
						ms = append(ms, [2]uint32{pa.kp, pb.kp})
					}
					a, b = a+1, b+1
				}
			}
			for range int(outlierShare * float64(len(ms))) {
				ms = append(ms, [2]uint32{uint32(rng.IntN(len(kps[i]))), uint32(rng.IntN(len(kps[j])))})
			}
			slices.SortFunc(ms, func(a, b [2]uint32) int { return int(a[0]) - int(b[0]) })
			db.Pairs = append(db.Pairs, colmap.Pair{I: i, J: j, Config: colmap.Calibrated, Matches: ms})
		}
	}
	return db.Write(out)
}

// seenPoint is a point an image sees and its keypoint there.
type seenPoint struct {
	point int32
	kp    uint32
}

// view is image i's keypoints: the points it sees, then clutter, in a
// random order; and the points it sees, in increasing order.
func view(i int, pts []point, perImage int, rng *rand.Rand) ([]colmap.Keypoint, []seenPoint) {
	cx := float64(i) * step
	yaw := (rng.Float64()*2 - 1) * 2 * math.Pi / 180
	s, c := math.Sincos(yaw)
	lo, _ := slices.BinarySearchFunc(pts, cx-10, func(p point, x float64) int { return cmpFloat(p.x, x) })
	type obs struct {
		p    int32
		u, v float32
	}
	var seen []obs
	for k := lo; k < len(pts) && pts[k].x < cx+10; k++ {
		x, y, z := pts[k].x-cx, pts[k].y, pts[k].z
		x, z = c*x-s*z, s*x+c*z // the camera turned by yaw about y
		u, v := focal*x/z+width/2+rng.NormFloat64()*0.5, focal*y/z+height/2+rng.NormFloat64()*0.5
		if z > 0 && u >= 0 && u < width && v >= 0 && v < height {
			seen = append(seen, obs{int32(k), float32(u), float32(v)})
		}
	}
	if len(seen) > perImage {
		seen = seen[:perImage]
	}
	kp := make([]colmap.Keypoint, 0, perImage)
	of := make([]seenPoint, len(seen))
	order := rng.Perm(perImage)
	kp = kp[:perImage]
	for x, o := range seen {
		kp[order[x]] = colmap.Keypoint{X: o.u, Y: o.v, A11: 2, A22: 2}
		of[x] = seenPoint{o.p, uint32(order[x])}
	}
	for x := len(seen); x < perImage; x++ {
		kp[order[x]] = colmap.Keypoint{X: float32(rng.Float64() * width), Y: float32(rng.Float64() * height), A11: 2, A22: 2}
	}
	return kp, of
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
