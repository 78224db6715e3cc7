package compare

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FusionMap is a fused landmark map as the paper's Fig. "slam" draws it,
// everything in the odometry frame (metres).
type FusionMap struct {
	Title string
	// Trajectory is the robot's dead-reckoned path (may be empty).
	Trajectory [][2]float64
	// Observations are every input landmark; Fused the fused landmarks.
	Observations, Fused [][2]float64
	// Negatives are the definite-negative pairs: two observations of one
	// cluster farther apart than the DN distance.
	Negatives [][2][2]float64
}

// FusionMapFigure draws m: the trajectory in blue, the observations in
// grey, the fused landmarks in black, the definite negatives as red lines.
func FusionMapFigure(name string, m FusionMap) (Figure, error) {
	p := plot.New()
	p.Title.Text = m.Title
	p.X.Label.Text, p.Y.Label.Text = "x (m)", "y (m)"
	xy := func(v [][2]float64) plotter.XYs {
		out := make(plotter.XYs, len(v))
		for i, q := range v {
			out[i] = plotter.XY{X: q[0], Y: q[1]}
		}
		return out
	}
	if len(m.Trajectory) > 1 {
		l, err := plotter.NewLine(xy(m.Trajectory))
		if err != nil {
			return Figure{}, err
		}
		l.LineStyle.Color, l.LineStyle.Width = color.NRGBA{0x2e, 0x6f, 0xd0, 0xff}, vg.Points(1)
		p.Add(l)
	}
	for _, n := range m.Negatives {
		l, err := plotter.NewLine(plotter.XYs{{X: n[0][0], Y: n[0][1]}, {X: n[1][0], Y: n[1][1]}})
		if err != nil {
			return Figure{}, err
		}
		l.LineStyle.Color, l.LineStyle.Width = color.NRGBA{0xe0, 0x3c, 0x31, 0x60}, vg.Points(0.5)
		p.Add(l)
	}
	for _, pts := range []struct {
		v      [][2]float64
		c      color.Color
		radius vg.Length
	}{{m.Observations, color.NRGBA{0x99, 0x99, 0x99, 0xff}, 1}, {m.Fused, color.Black, 2}} {
		if len(pts.v) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xy(pts.v))
		if err != nil {
			return Figure{}, err
		}
		s.GlyphStyle.Shape, s.GlyphStyle.Color, s.GlyphStyle.Radius = draw.CircleGlyph{}, pts.c, vg.Points(float64(pts.radius))
		p.Add(s)
	}
	equalAxes(p)
	return render(name, [][]*plot.Plot{{p}}, 16*vg.Centimeter, 16*vg.Centimeter)
}

// equalAxes gives both axes the same metres per unit length.
func equalAxes(p *plot.Plot) {
	w, h := p.X.Max-p.X.Min, p.Y.Max-p.Y.Min
	if w > h {
		c := (p.Y.Max + p.Y.Min) / 2
		p.Y.Min, p.Y.Max = c-w/2, c+w/2
	} else {
		c := (p.X.Max + p.X.Min) / 2
		p.X.Min, p.X.Max = c-h/2, c+h/2
	}
}

// FusionRow is one method's point of FusionFrequencyFigure.
type FusionRow struct {
	Method  string
	PBar    float64
	Seconds float64
}

// FusionFrequencyFigure draws P̄ = PP/(DN+PP) against frequency (1/time, log scale)
// per method, as the paper draws its forest table.
func FusionFrequencyFigure(name, title string, rows []FusionRow) (Figure, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = "frequency (1/s, log scale)", "PP/(DN+PP)"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	lo, hi, ymin := math.Inf(1), math.Inf(-1), 1.0
	for _, r := range rows {
		f := 1 / math.Max(r.Seconds, 1e-4)
		lo, hi, ymin = min(lo, f), max(hi, f), min(ymin, r.PBar)
		pt := plotter.XYs{{X: f, Y: r.PBar}}
		s, err := plotter.NewScatter(pt)
		if err != nil {
			return Figure{}, err
		}
		s.GlyphStyle.Shape, s.GlyphStyle.Radius, s.GlyphStyle.Color = draw.CircleGlyph{}, vg.Points(4.5), colours[Valid]
		p.Add(s)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pt, Labels: []string{" " + r.Method}})
		if err != nil {
			return Figure{}, err
		}
		lb.TextStyle[0].Font.Size, lb.TextStyle[0].YAlign, lb.Offset = vg.Points(9), text.YCenter, vg.Point{X: vg.Points(5)}
		p.Add(lb)
	}
	if len(rows) == 0 {
		return Figure{}, fmt.Errorf("compare: no method to draw")
	}
	p.X.Min, p.X.Max = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi))+0.3)
	p.Y.Min, p.Y.Max = math.Max(0, math.Floor(ymin*10-0.5)/10), 1.02
	p.Add(plotter.NewGrid())
	return render(name, [][]*plot.Plot{{p}}, 16*vg.Centimeter, 11*vg.Centimeter)
}
