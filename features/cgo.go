//go:build cgo

package features

// The cgo flags of the package, in one place: OpenCV 4 through pkg-config,
// as gocv itself finds it.

/*
#cgo pkg-config: opencv4
#cgo CXXFLAGS: -std=c++11
*/
import "C"
