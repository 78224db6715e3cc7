module github.com/clearmatch/clearmatch

go 1.24.0

require (
	github.com/disintegration/imaging v1.6.2
	github.com/rwcarlsen/goexif v0.0.0-20190401172101-9e8deecbddbd
	gocv.io/x/gocv v0.31.0
	golang.org/x/image v0.25.0
	gonum.org/v1/gonum v0.17.0
	modernc.org/sqlite v1.40.1
)

require (
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/ncruces/go-strftime v0.1.9 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	golang.org/x/exp v0.0.0-20250620022241-b7579e27df2b // indirect
	golang.org/x/sys v0.36.0 // indirect
	modernc.org/libc v1.66.10 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.11.0 // indirect
)
