package datasets

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/numbers"
)

// Camera is a ground-truth camera: its pose, its intrinsics K (pixels,
// as the ground truth gives them) and the image size they are for.
type Camera struct {
	geom.Pose
	K             [3][3]float64
	Width, Height int
}

// ReadStrechaCameras reads a folder of ground-truth cameras in Strecha's
// format, NAME.camera for image NAME: K (3 rows), a row of zeros, R (3
// rows, camera to world), the centre C (1 row), "width height". Errors
// name the file.
func ReadStrechaCameras(dir string) (map[string]Camera, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]Camera{}
	for _, e := range es {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".camera") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		v, err := numbers.Floats(strings.Fields(string(data)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(v) != 26 {
			return nil, fmt.Errorf("%s: %d numbers, want 26 (K, zeros, R, C, width height)", path, len(v))
		}
		var c Camera
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				c.R[i][k] = v[12+3*k+i] // world to camera: the transpose
			}
			c.C[i] = v[21+i]
		}
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				c.K[i][k] = v[3*i+k]
			}
		}
		c.Width, c.Height = int(v[24]), int(v[25])
		if c.K[0][0] <= 0 || c.K[1][1] <= 0 || c.K[2][2] != 1 || c.Width <= 0 || c.Height <= 0 || float64(c.Width) != v[24] || float64(c.Height) != v[25] {
			return nil, fmt.Errorf("%s: K (fx, fy > 0, last row 0 0 1) or the size %g×%g is not valid", path, v[24], v[25])
		}
		if d := geom.Det3(c.Pose.Matrix()); math.Abs(d-1) > 1e-3 {
			return nil, fmt.Errorf("%s: R is not a rotation (determinant %g)", path, d)
		}
		out[strings.TrimSuffix(e.Name(), ".camera")] = c
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no .camera files", dir)
	}
	return out, nil
}
