package refine_test

import (
	"fmt"
	"image"
	"math"

	"github.com/clearmatch/clearmatch/refine"
)

// Two views of a smooth pattern, the second shifted by (0.4, -0.3) px; the
// detector found the point at (100.2, 100.1) in it. Aligning its patch to
// the reference's moves it to where the reference's point is.
func ExampleTemplate_Align() {
	view := func(dx, dy float64) *refine.Image {
		g := image.NewGray(image.Rect(0, 0, 200, 200))
		for y := 0; y < 200; y++ {
			for x := 0; x < 200; x++ {
				u, v := float64(x)+dx, float64(y)+dy
				g.Pix[y*g.Stride+x] = uint8(math.Round(128 + 60*math.Sin(u/3.1)*math.Cos(v/4.3) + 40*math.Sin((u+v)/7.7)))
			}
		}
		return refine.NewImage(g)
	}
	ref, other := view(0, 0), view(0.4, -0.3)
	t, err := refine.NewTemplate(ref, refine.Frame{X: 100, Y: 100, Scale: 2}, refine.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	x, y, cc, err := t.Align(other, refine.Frame{X: 100.2, Y: 100.1, Scale: 2}, refine.Options{})
	fmt.Printf("(%.1f, %.1f), correlation %.2f, %v\n", x, y, cc, err)
	// Output: (99.6, 100.3), correlation 1.00, <nil>
}
