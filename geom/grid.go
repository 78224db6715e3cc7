package geom

import "math"

// Grid buckets points into square cells for radius and band queries:
// the index guided matching, track completion and track extension search
// keypoints with.
type Grid struct {
	cell         float64
	x0, y0       float64
	nx, ny       int
	start, items []int32
}

// NewGrid buckets pts into cells of side cell (coarser when the points
// are sparse or far-flung).
func NewGrid(pts []Point, cell float64) *Grid {
	g := &Grid{cell: cell}
	if len(pts) == 0 {
		return g
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
	}
	g.x0, g.y0 = x0, y0
	// Counts are reckoned in floats (far-flung points would overflow an
	// int). Sparse or far-flung points get coarser cells, about 4 per
	// point in all; points along a line, whose cells that would still
	// leave far more, get cells that cut each side into at most that many.
	most := float64(4*len(pts) + 64)
	sx, sy := x1-x0, y1-y0
	count := func(c float64) (float64, float64) { return math.Floor(sx/c) + 1, math.Floor(sy/c) + 1 }
	nx, ny := 1.0, 1.0
	if math.IsInf(sx, 0) || math.IsInf(sy, 0) {
		g.cell = math.Inf(1)
	} else if nx, ny = count(cell); nx*ny > most {
		g.cell *= math.Sqrt(nx * ny / most)
		if nx, ny = count(g.cell); nx*ny > 3*most+3 {
			g.cell = max(g.cell, sx/most, sy/most)
			nx, ny = count(g.cell)
		}
	}
	g.nx, g.ny = int(nx), int(ny)
	g.start = make([]int32, g.nx*g.ny+1)
	cells := make([]int, len(pts))
	for k, p := range pts {
		c := g.cellOf(p.X, p.Y)
		cells[k] = c
		g.start[c+1]++
	}
	for c := 0; c < g.nx*g.ny; c++ {
		g.start[c+1] += g.start[c]
	}
	g.items = make([]int32, len(pts))
	fill := append([]int32(nil), g.start[:g.nx*g.ny]...)
	for k, c := range cells {
		g.items[fill[c]] = int32(k)
		fill[c]++
	}
	return g
}

func (g *Grid) cellOf(x, y float64) int {
	cx := min(max(int((x-g.x0)/g.cell), 0), g.nx-1)
	cy := min(max(int((y-g.y0)/g.cell), 0), g.ny-1)
	return cy*g.nx + cx
}

func (g *Grid) visitCells(cx0, cx1, cy0, cy1 int, f func(int32)) {
	cx0, cx1 = max(cx0, 0), min(cx1, g.nx-1)
	cy0, cy1 = max(cy0, 0), min(cy1, g.ny-1)
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			c := cy*g.nx + cx
			for _, k := range g.items[g.start[c]:g.start[c+1]] {
				f(k)
			}
		}
	}
}

// cellIndex is the cell of offset d from the grid's origin, clamped to
// [−1, 1<<30] so that far or infinite offsets convert safely.
func (g *Grid) cellIndex(d float64) int {
	v := math.Floor(d / g.cell)
	switch {
	case !(v >= -1): // also NaN
		return -1
	case v > 1<<30:
		return 1 << 30
	}
	return int(v)
}

// Near calls f with the index of every point in the cells within r of
// (x, y): a superset of the points within r, which f checks.
func (g *Grid) Near(x, y, r float64, f func(int32)) {
	if g.nx == 0 || math.IsNaN(x) || math.IsNaN(y) {
		return
	}
	lo := func(v, o float64) int { return g.cellIndex(v - r - o) }
	hi := func(v, o float64) int { return g.cellIndex(v + r - o) }
	if hi(x, g.x0) < 0 || hi(y, g.y0) < 0 || lo(x, g.x0) >= g.nx || lo(y, g.y0) >= g.ny {
		return
	}
	g.visitCells(lo(x, g.x0), hi(x, g.x0), lo(y, g.y0), hi(y, g.y0), f)
}

// AlongLine calls f for every point in the cells within r of the line
// l₀x + l₁y + l₂ = 0, each point once.
func (g *Grid) AlongLine(l [3]float64, r float64, f func(int32)) {
	nrm := math.Hypot(l[0], l[1])
	if g.nx == 0 || nrm == 0 || math.IsNaN(nrm) || math.IsInf(nrm, 0) {
		return
	}
	a, b, c := l[0]/nrm, l[1]/nrm, l[2]/nrm
	if math.Abs(b) >= math.Abs(a) {
		// y = −(a x + c)/b: walk the columns.
		band := r / math.Abs(b)
		for cx := 0; cx < g.nx; cx++ {
			xa, xb := g.x0+float64(cx)*g.cell, g.x0+float64(cx+1)*g.cell
			ya, yb := -(a*xa+c)/b, -(a*xb+c)/b
			y0, y1 := min(ya, yb)-band, max(ya, yb)+band
			g.visitCells(cx, cx, g.cellIndex(y0-g.y0), g.cellIndex(y1-g.y0), f)
		}
		return
	}
	band := r / math.Abs(a)
	for cy := 0; cy < g.ny; cy++ {
		ya, yb := g.y0+float64(cy)*g.cell, g.y0+float64(cy+1)*g.cell
		xa, xb := -(b*ya+c)/a, -(b*yb+c)/a
		x0, x1 := min(xa, xb)-band, max(xa, xb)+band
		g.visitCells(g.cellIndex(x0-g.x0), g.cellIndex(x1-g.x0), cy, cy, f)
	}
}
