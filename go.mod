module github.com/clearmatch/clearmatch

go 1.24.0

require (
	github.com/disintegration/imaging v1.6.2
	gocv.io/x/gocv v0.31.0
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/image v0.25.0 // indirect
