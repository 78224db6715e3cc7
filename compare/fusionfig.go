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
	// Trajectory is the robot's path (may be empty), TrajectoryLabel
	// its legend ("trajectory (odometry)" when empty).
	Trajectory      [][2]float64
	TrajectoryLabel string
	// Reference are positions measured apart (GPS) in the figure's
	// frame, drawn in green; ReferenceLabel names them.
	Reference      [][2]float64
	ReferenceLabel string
	// Observations are every input landmark; Fused the fused landmarks.
	Observations, Fused [][2]float64
	// Truth, when not nil, is each observation's true identity: the
	// observations are coloured by it.
	Truth []int
	// Wrong are pairs of one cluster whose truths differ: the real
	// conflicts, drawn in red.
	Wrong [][2][2]float64
	// Far are pairs of one cluster farther apart than the DN distance in
	// the odometry frame, drawn in orange: drift puts right pairs there
	// too, so they are drawn only without a truth.
	Far [][2][2]float64
	// FarLabel names Far in the legend.
	FarLabel string
}

// FusionMapFigure draws m with a legend: the trajectory in blue, the
// reference positions in green, the observations in grey (or coloured by
// truth), the fused landmarks in black, wrong pairs in red, far pairs in
// orange.
func FusionMapFigure(name string, m FusionMap) (Figure, error) {
	p := plot.New()
	p.Title.Text = m.Title
	p.X.Label.Text, p.Y.Label.Text = "x (m)", "y (m)"
	p.Legend.Top = true
	if len(m.Trajectory) > 1 {
		l, err := plotter.NewLine(xys(m.Trajectory))
		if err != nil {
			return Figure{}, err
		}
		l.LineStyle.Color, l.LineStyle.Width = color.NRGBA{0x2e, 0x6f, 0xd0, 0xff}, vg.Points(1)
		p.Add(l)
		label := m.TrajectoryLabel
		if label == "" {
			label = "trajectory (odometry)"
		}
		p.Legend.Add(label, l)
	}
	if len(m.Reference) > 0 {
		s, err := plotter.NewScatter(xys(m.Reference))
		if err != nil {
			return Figure{}, err
		}
		s.GlyphStyle.Shape, s.GlyphStyle.Color, s.GlyphStyle.Radius = draw.CircleGlyph{}, color.NRGBA{0x2c, 0xa0, 0x2c, 0xff}, vg.Points(0.8)
		p.Add(s)
		p.Legend.Add(m.ReferenceLabel, s)
	}
	for _, set := range []struct {
		pairs [][2][2]float64
		c     color.Color
		label string
	}{{m.Far, color.NRGBA{0xf0, 0x9a, 0x2a, 0x60}, m.FarLabel}, {m.Wrong, color.NRGBA{0xe0, 0x3c, 0x31, 0xb0}, "wrong pairs (truth differs)"}} {
		for k, n := range set.pairs {
			l, err := plotter.NewLine(plotter.XYs{{X: n[0][0], Y: n[0][1]}, {X: n[1][0], Y: n[1][1]}})
			if err != nil {
				return Figure{}, err
			}
			l.LineStyle.Color, l.LineStyle.Width = set.c, vg.Points(0.5)
			p.Add(l)
			if k == 0 {
				p.Legend.Add(fmt.Sprintf("%s: %d", set.label, len(set.pairs)), l)
			}
		}
	}
	if err := addObservations(p, m.Observations, m.Truth); err != nil {
		return Figure{}, err
	}
	if len(m.Fused) > 0 {
		s, err := plotter.NewScatter(xys(m.Fused))
		if err != nil {
			return Figure{}, err
		}
		s.GlyphStyle.Shape, s.GlyphStyle.Color, s.GlyphStyle.Radius = draw.CircleGlyph{}, color.Black, vg.Points(2)
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("fused landmarks: %d", len(m.Fused)), s)
	}
	equalAxes(p)
	return render(name, [][]*plot.Plot{{p}}, 16*vg.Centimeter, 16*vg.Centimeter)
}

// addObservations draws the observations in grey, or each in its truth's
// colour (a fixed palette, cycled).
func addObservations(p *plot.Plot, obs [][2]float64, truth []int) error {
	if len(obs) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xys(obs))
	if err != nil {
		return err
	}
	s.GlyphStyle.Shape, s.GlyphStyle.Color, s.GlyphStyle.Radius = draw.CircleGlyph{}, color.NRGBA{0x99, 0x99, 0x99, 0xff}, vg.Points(1)
	label := "observations"
	if truth != nil {
		s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			g := s.GlyphStyle
			g.Color = truthPalette[truth[i]%len(truthPalette)]
			return g
		}
		label = "observations, coloured by truth"
	}
	p.Add(s)
	p.Legend.Add(label, s)
	return nil
}

// xys are the points v for a plotter.
func xys(v [][2]float64) plotter.XYs {
	out := make(plotter.XYs, len(v))
	for i, q := range v {
		out[i] = plotter.XY{X: q[0], Y: q[1]}
	}
	return out
}

// truthPalette colours true identities: twelve hues that stay apart.
var truthPalette = []color.Color{
	color.NRGBA{0x1f, 0x77, 0xb4, 0xff}, color.NRGBA{0x2c, 0xa0, 0x2c, 0xff}, color.NRGBA{0x94, 0x67, 0xbd, 0xff},
	color.NRGBA{0x8c, 0x56, 0x4b, 0xff}, color.NRGBA{0xe3, 0x77, 0xc2, 0xff}, color.NRGBA{0x17, 0xbe, 0xcf, 0xff},
	color.NRGBA{0xbc, 0xbd, 0x22, 0xff}, color.NRGBA{0x7f, 0x7f, 0x7f, 0xff}, color.NRGBA{0x39, 0x3b, 0x79, 0xff},
	color.NRGBA{0x63, 0x79, 0x39, 0xff}, color.NRGBA{0x84, 0x3c, 0x39, 0xff}, color.NRGBA{0x7b, 0x41, 0x73, 0xff},
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
