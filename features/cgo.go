//go:build cgo

package features

// The cgo flags of the package, in one place: OpenCV 4 through pkg-config,
// as gocv itself finds it, and OpenBLAS (the BLAS Debian's OpenCV links)
// for the matcher's products.

/*
#cgo pkg-config: opencv4 openblas
#cgo CXXFLAGS: -std=c++11
*/
import "C"
