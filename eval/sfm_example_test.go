package eval_test

import (
	"fmt"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/geom"
)

// A reconstruction is known only up to a similarity: EvaluateSfM aligns
// its camera centres to the ground truth's first, then measures each
// camera. Here the model is the truth at half scale, shifted, with one
// camera 1 cm off (in ground-truth units, metres): the least-squares fit
// spreads part of that error over the others, as the benchmark's protocol
// does. The cameras' rotations are exact, so their whole error is the
// fitted similarity's turn, which every camera shares.
func ExampleEvaluateSfM() {
	id := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	gt := map[string]datasets.Camera{}
	model := &colmap.Model{Poses: map[string]geom.Pose{}}
	for i, c := range [][3]float64{{0, 0, 0}, {1, 0, 0}, {2, 0.5, 0}, {1, 1, 0.2}} {
		name := fmt.Sprintf("%04d.jpg", i)
		gt[name] = datasets.Camera{Pose: geom.Pose{R: id, C: c}}
		m := [3]float64{c[0]/2 + 5, c[1] / 2, c[2] / 2}
		if i == 3 {
			m[0] += 0.005 // 1 cm at the truth's scale
		}
		model.Poses[name] = geom.Pose{R: id, C: m}
	}
	r, err := eval.EvaluateSfM(model, gt)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("registered %d of %d, scale %.2f\n", r.Registered, r.Images, r.Scale)
	fmt.Printf("position error max %.1f mm, rotation error max %.2f°\n", 1000*r.Position.Max, r.Rotation.Max)
	fmt.Printf("shared by every camera %.2f°, left %.2f°\n", r.RotationCommon, r.RotationResidual.Max)
	// Output:
	// registered 4 of 4, scale 2.00
	// position error max 6.0 mm, rotation error max 0.14°
	// shared by every camera 0.14°, left 0.00°
}
