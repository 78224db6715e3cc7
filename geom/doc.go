// Package geom holds the small geometry every stage shares: image
// positions (Point), pinhole intrinsics (Intrinsics), 3×3 matrices as
// row-major [9]float64 and 3-vectors as [3]float64, rotations, and a grid
// that finds the points near a position or along a line.
//
// Pixel convention: the centre of an image's first pixel is at (0, 0)
// (OpenCV's); COLMAP's files put it at (0.5, 0.5), and package export
// converts.
//
// Everything here is a pure function of its arguments, safe for
// concurrent use, and exact to the arithmetic written (no reordering), so
// results are the same on every machine.
package geom
