package geom

// Point is a position in an image, in pixels (first pixel's centre at
// (0, 0)).
type Point struct{ X, Y float64 }

// Intrinsics are pinhole intrinsics in pixels: focal lengths and principal
// point. The zero value means unknown.
type Intrinsics struct{ Fx, Fy, Cx, Cy float64 }

// Known reports whether c holds intrinsics.
func (c Intrinsics) Known() bool { return c.Fx > 0 && c.Fy > 0 }

// Normalize returns K⁻¹ p: p in normalized image coordinates.
func (c Intrinsics) Normalize(p Point) Point {
	return Point{(p.X - c.Cx) / c.Fx, (p.Y - c.Cy) / c.Fy}
}

// Ray returns K⁻¹ (p, 1): the direction of p's ray in the camera's frame.
func (c Intrinsics) Ray(p Point) [3]float64 {
	q := c.Normalize(p)
	return [3]float64{q.X, q.Y, 1}
}

// Pose is a camera's pose: R maps world to camera coordinates (x_cam =
// R x_world + t) and C is the camera's centre in the world (C = −Rᵀ t).
type Pose struct {
	R [3][3]float64
	C [3]float64
}

// Matrix is R as a row-major [9]float64.
func (p Pose) Matrix() [9]float64 {
	r := p.R
	return [9]float64{r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2], r[2][0], r[2][1], r[2][2]}
}
