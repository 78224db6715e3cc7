package geom

import "math"

// RotationAngle is the angle of the rotation R (row-major), in degrees:
// atan2 of its sine (from the skew part) and cosine (from the trace),
// exact near 0 where acos of the trace is not.
func RotationAngle(R [9]float64) float64 {
	c := (R[0] + R[4] + R[8] - 1) / 2
	s := math.Sqrt((R[7]-R[5])*(R[7]-R[5])+(R[2]-R[6])*(R[2]-R[6])+(R[3]-R[1])*(R[3]-R[1])) / 2
	return math.Atan2(s, c) * 180 / math.Pi
}

// NearestRotation is the rotation nearest m in the Frobenius norm (the
// chordal mean of rotations when m is their sum). ok is false when m is
// zero.
func NearestRotation(m [9]float64) ([9]float64, bool) {
	U, s, V, ok := SVD3(m)
	if !ok || s[0] == 0 {
		return [9]float64{}, false
	}
	// SVD3 makes U and V rotations, moving any reflection into the
	// smallest singular value's sign, so U Vᵀ is the nearest rotation.
	return Mul3(U, Transpose3(V)), true
}
