package datasets

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// GraffitiImages is the number of images of the Graffiti sequence.
const GraffitiImages = 6

// Homography is a 3×3 matrix, row-major, mapping homogeneous pixel
// coordinates of one image to another.
type Homography [9]float64

// Identity is the identity homography.
var Identity = Homography{1, 0, 0, 0, 1, 0, 0, 0, 1}

// Apply maps (x, y); ok is false when the point maps to infinity.
func (h Homography) Apply(x, y float64) (float64, float64, bool) {
	w := h[6]*x + h[7]*y + h[8]
	if w == 0 || math.IsNaN(w) {
		return 0, 0, false
	}
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w, true
}

// Mul returns h·g (apply g first).
func (h Homography) Mul(g Homography) Homography {
	var r Homography
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				r[i*3+j] += h[i*3+k] * g[k*3+j]
			}
		}
	}
	return r
}

func (h Homography) det() float64 {
	return h[0]*(h[4]*h[8]-h[5]*h[7]) - h[1]*(h[3]*h[8]-h[5]*h[6]) + h[2]*(h[3]*h[7]-h[4]*h[6])
}

// singular reports a determinant negligible for h's scale (|det| below
// 1e-12 of ‖h‖³, Frobenius): a homography is defined up to scale, so a valid
// one scaled by 1e-5 is as regular as itself.
func (h Homography) singular() bool {
	n := 0.0
	for _, v := range h {
		n += v * v
	}
	n = math.Sqrt(n)
	d := h.det()
	return !(math.Abs(d) > 1e-12*n*n*n) // NaN is singular too
}

// Inverse returns h⁻¹, or ok=false when h is singular.
func (h Homography) Inverse() (Homography, bool) {
	d := h.det()
	if d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
		return Homography{}, false
	}
	inv := Homography{
		h[4]*h[8] - h[5]*h[7], h[2]*h[7] - h[1]*h[8], h[1]*h[5] - h[2]*h[4],
		h[5]*h[6] - h[3]*h[8], h[0]*h[8] - h[2]*h[6], h[2]*h[3] - h[0]*h[5],
		h[3]*h[7] - h[4]*h[6], h[1]*h[6] - h[0]*h[7], h[0]*h[4] - h[1]*h[3],
	}
	for i := range inv {
		inv[i] /= d
	}
	return inv, true
}

// Graffiti is the Graffiti benchmark: the image files and the homographies
// from image 1 to each image (H1to1 = I).
type Graffiti struct {
	Images []string     // img1.ppm … img6.ppm
	H1to   []Homography // H1to[k] maps image 1 to image k+1
}

// H returns the homography from image i to image j (0-based):
// H(i→j) = H1toj · H1toi⁻¹.
func (g *Graffiti) H(i, j int) Homography {
	inv, _ := g.H1to[i].Inverse() // checked non-singular at load
	return g.H1to[j].Mul(inv)
}

// LoadGraffiti reads the Graffiti benchmark from dir (the graffiti folder).
func LoadGraffiti(dir string) (*Graffiti, error) {
	g := &Graffiti{H1to: []Homography{Identity}}
	for k := 1; k <= GraffitiImages; k++ {
		img := filepath.Join(dir, fmt.Sprintf("img%d.ppm", k))
		if _, err := os.Stat(img); err != nil {
			return nil, fmt.Errorf("graffiti: missing image: %w", err)
		}
		g.Images = append(g.Images, img)
		if k == 1 {
			continue
		}
		h, err := ReadHomography(filepath.Join(dir, fmt.Sprintf("H1to%dp.txt", k)))
		if err != nil {
			return nil, err
		}
		g.H1to = append(g.H1to, h)
	}
	return g, nil
}

// ReadHomography reads a 3×3 homography (three lines of three numbers),
// rejecting non-finite values and singular matrices.
func ReadHomography(path string) (Homography, error) {
	f, err := os.Open(path)
	if err != nil {
		return Homography{}, fmt.Errorf("graffiti: %w", err)
	}
	defer f.Close()
	var h Homography
	row := 0
	sc := bufio.NewScanner(f)
	ln := 0
	for sc.Scan() {
		ln++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if row == 3 {
			return Homography{}, fmt.Errorf("%s:%d: more than three rows", path, ln)
		}
		if len(fs) != 3 {
			return Homography{}, fmt.Errorf("%s:%d: want three numbers, got %d", path, ln, len(fs))
		}
		for c, s := range fs {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return Homography{}, fmt.Errorf("%s:%d: %q is not a finite number", path, ln, s)
			}
			h[row*3+c] = v
		}
		row++
	}
	if err := sc.Err(); err != nil {
		return Homography{}, fmt.Errorf("%s: %w", path, err)
	}
	if row != 3 {
		return Homography{}, fmt.Errorf("%s:%d: %d rows, want 3", path, ln, row)
	}
	if h.singular() {
		return Homography{}, fmt.Errorf("%s:%d: singular homography (determinant %g)", path, ln, h.det())
	}
	return h, nil
}
