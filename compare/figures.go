package compare

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Colours of the paper's code.
var colours = map[Colour]color.NRGBA{
	Recovered:    {0x1b, 0x7a, 0x35, 0xff}, // dark green
	Valid:        {0x9b, 0xd9, 0x8a, 0xff}, // light green
	Inconsistent: {0xe0, 0x3c, 0x31, 0xff}, // red
	NotDistinct:  {0xf3, 0x9c, 0x12, 0xff}, // orange
	Both:         {0x8e, 0x44, 0xad, 0xff}, // purple
	Skipped:      {0xcc, 0xcc, 0xcc, 0xff}, // grey
}

var orange = color.NRGBA{0xf3, 0x9c, 0x12, 0xff}

// Figure is one picture, rendered to PNG and SVG.
type Figure struct {
	Name     string // file name without extension
	PNG, SVG []byte
}

// render draws the plots tiled in rows into a w×h figure.
func render(name string, rows [][]*plot.Plot, w, h vg.Length) (Figure, error) {
	f := Figure{Name: name}
	tiles := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: vg.Millimeter * 3, PadY: vg.Millimeter * 3,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	drawAll := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		canvases := plot.Align(rows, tiles, dc)
		for i := range rows {
			for j, p := range rows[i] {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110), vgimg.UseBackgroundColor(color.White))
	drawAll(img)
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pb); err != nil {
		return f, err
	}
	svg := vgsvg.New(w, h)
	drawAll(svg)
	var sb bytes.Buffer
	if _, err := svg.WriteTo(&sb); err != nil {
		return f, err
	}
	f.PNG, f.SVG = pb.Bytes(), sb.Bytes()
	return f, nil
}

// heatCell is one square of a heat-map grid.
type heatCell struct {
	col, row int
	label    string
	fill     color.Color
}

// heatmap draws a grid of labelled, coloured squares: columns left to
// right, rows top to bottom.
func heatmap(title, xlabel, ylabel string, cols, rows []string, cells []heatCell) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.X.Min, p.X.Max = -0.5, float64(len(cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	var xt, yt []plot.Tick
	for i, c := range cols {
		xt = append(xt, plot.Tick{Value: float64(i), Label: c})
	}
	for i, r := range rows {
		yt = append(yt, plot.Tick{Value: float64(len(rows) - 1 - i), Label: r})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	var xys plotter.XYs
	var labels []string
	for _, c := range cells {
		x, y := float64(c.col), float64(len(rows)-1-c.row)
		sq, err := plotter.NewPolygon(plotter.XYs{{X: x - 0.5, Y: y - 0.5}, {X: x + 0.5, Y: y - 0.5}, {X: x + 0.5, Y: y + 0.5}, {X: x - 0.5, Y: y + 0.5}})
		if err != nil {
			return nil, err
		}
		sq.Color = c.fill
		sq.LineStyle.Color = color.White
		sq.LineStyle.Width = vg.Points(1.5)
		p.Add(sq)
		xys = append(xys, plotter.XY{X: x, Y: y})
		labels = append(labels, c.label)
	}
	if len(xys) > 0 {
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = text.XCenter, text.YCenter
			lb.TextStyle[i].Font.Size = vg.Points(9)
			if dark(cells[i].fill) {
				lb.TextStyle[i].Color = color.White
			}
		}
		p.Add(lb)
	}
	return p, nil
}

// dark reports whether white text reads better than black on c.
func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) < 0.5*0xffff
}

// gridAxes returns the column labels, row labels and axis names of a grid.
func (r *SyntheticReport) gridAxes(grid int) (cols []string, colVals []float64, rows []string, xlabel string) {
	c := r.Config
	if grid == 1 {
		for _, v := range c.Views {
			cols = append(cols, fmt.Sprint(v))
			colVals = append(colVals, float64(v))
		}
		xlabel = fmt.Sprintf("views (ratio %.1f)", c.Ratio)
	} else {
		for _, v := range c.Ratios {
			cols = append(cols, fmt.Sprintf("%.1f", v))
			colVals = append(colVals, v)
		}
		xlabel = fmt.Sprintf("observation ratio (%d views)", c.Grid2Views)
	}
	for _, m := range c.Mismatch {
		rows = append(rows, fmt.Sprintf("%.0f%%", 100*m))
	}
	return cols, colVals, rows, xlabel
}

// F1Figure draws one grid's F1 heat-maps, one panel per method, in the
// paper's colour code; completed shows the F1 of the transitive closure
// (coloured by the original output's flags).
func (r *SyntheticReport) F1Figure(grid int, completed bool) (Figure, error) {
	cols, colVals, rows, xlabel := r.gridAxes(grid)
	var panels []*plot.Plot
	for k, m := range r.Config.Methods {
		var cells []heatCell
		for ri, mis := range r.Config.Mismatch {
			for ci, cv := range colVals {
				c, ok := r.Lookup(grid, m, cv, mis)
				if !ok {
					continue
				}
				v := c.F1
				if completed {
					v = c.F1Completed
				}
				label := fmt.Sprint(percent(v))
				if c.Colour() == Skipped {
					label = "–"
				}
				cells = append(cells, heatCell{ci, ri, label, colours[c.Colour()]})
			}
		}
		ylabel := ""
		if k == 0 {
			ylabel = "mismatch"
		}
		p, err := heatmap(m, xlabel, ylabel, cols, rows, cells)
		if err != nil {
			return Figure{}, err
		}
		panels = append(panels, p)
	}
	name := fmt.Sprintf("grid%d-f1", grid)
	if completed {
		name += "-completed"
	}
	w := vg.Length(len(panels)) * 5.2 * vg.Centimeter
	return render(name, [][]*plot.Plot{panels}, w, 6.5*vg.Centimeter)
}

// UniverseFigure draws CLEAR's estimate beside the eigengap heuristic's
// (Fig. "mEstimate") for one grid: rounded means, coloured by the relative
// error against the items actually observed (green exact, red ≥ 30%).
func (r *SyntheticReport) UniverseFigure(grid int) (Figure, error) {
	cols, colVals, rows, xlabel := r.gridAxes(grid)
	var panels []*plot.Plot
	for k, est := range []string{"CLEAR", "eigengap"} {
		var cells []heatCell
		for ri, mis := range r.Config.Mismatch {
			for ci, cv := range colVals {
				for _, u := range r.Universe {
					x := float64(u.Views)
					if grid == 2 {
						x = u.Ratio
					}
					if u.Grid != grid || math.Abs(x-cv) > 1e-9 || math.Abs(u.Mismatch-mis) > 1e-9 {
						continue
					}
					v := u.CLEAR
					if k == 1 {
						v = u.Eigengap
					}
					e := math.Abs(v-u.Observed) / max(u.Observed, 1)
					cells = append(cells, heatCell{ci, ri, fmt.Sprint(int(math.Round(v))), errorColour(e)})
				}
			}
		}
		ylabel := ""
		if k == 0 {
			ylabel = "mismatch"
		}
		p, err := heatmap(est, xlabel, ylabel, cols, rows, cells)
		if err != nil {
			return Figure{}, err
		}
		panels = append(panels, p)
	}
	return render(fmt.Sprintf("grid%d-universe", grid), [][]*plot.Plot{panels}, 11*vg.Centimeter, 6.5*vg.Centimeter)
}

// errorColour shades from green (0) through yellow (0.1) to red (≥ 0.3).
func errorColour(e float64) color.NRGBA {
	lerp := func(a, b color.NRGBA, t float64) color.NRGBA {
		f := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
		return color.NRGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 0xff}
	}
	green, yellow, red := color.NRGBA{0x9b, 0xd9, 0x8a, 0xff}, color.NRGBA{0xf7, 0xe3, 0x6b, 0xff}, color.NRGBA{0xe0, 0x6c, 0x5f, 0xff}
	switch {
	case e <= 0.1:
		return lerp(green, yellow, e/0.1)
	case e <= 0.3:
		return lerp(yellow, red, (e-0.1)/0.2)
	}
	return red
}

// scatter draws the methods' points with their names, green when cycle
// consistent and red when not (the paper's markers).
func (r *RealReport) scatter(p *plot.Plot, x func(RealRow) float64, y func(RealRow) float64) error {
	for _, row := range r.Rows {
		if row.Skipped != "" {
			continue
		}
		pt := plotter.XYs{{X: x(row), Y: y(row)}}
		s, err := plotter.NewScatter(pt)
		if err != nil {
			return err
		}
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(4.5)
		s.GlyphStyle.Color = colours[Valid]
		if !row.Consistent {
			s.GlyphStyle.Color = colours[Inconsistent]
		}
		p.Add(s)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pt, Labels: []string{" " + row.Method}})
		if err != nil {
			return err
		}
		lb.TextStyle[0].Font.Size = vg.Points(9)
		lb.TextStyle[0].YAlign = text.YCenter
		lb.Offset = vg.Point{X: vg.Points(5)}
		p.Add(lb)
	}
	return nil
}

// refLine draws one of the input's orange reference lines, from a to b.
func refLine(p *plot.Plot, a, b plotter.XY) error {
	l, err := plotter.NewLine(plotter.XYs{a, b})
	if err != nil {
		return err
	}
	l.LineStyle.Color, l.LineStyle.Width = orange, vg.Points(1.5)
	p.Add(l)
	return nil
}

// Figures draws the paper's two figures of a real dataset: precision vs
// frequency (1/time, log axis) and precision vs recall, with the input's
// precision (and recall) as orange lines.
func (r *RealReport) Figures() ([]Figure, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	pmin, rmin := r.Input.Precision, r.Input.Recall
	for _, row := range r.Rows {
		if row.Skipped == "" && row.Frequency > 0 {
			lo, hi = min(lo, row.Frequency), max(hi, row.Frequency)
			pmin, rmin = min(pmin, row.Precision), min(rmin, row.Recall)
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 10
	}
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi))+0.3)
	ymin := math.Max(0, math.Floor(pmin*10-0.5)/10)
	title := fmt.Sprintf("%s (%s input): %d observations, %d views", r.Dataset, r.Protocol, r.Observations, r.Views)

	pf := plot.New()
	pf.Title.Text = title
	pf.X.Label.Text, pf.Y.Label.Text = "frequency (1/s, log scale)", "precision"
	pf.X.Scale, pf.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	pf.X.Min, pf.X.Max, pf.Y.Min, pf.Y.Max = lo, hi, ymin, 1.02
	pf.Add(plotter.NewGrid())
	if err := refLine(pf, plotter.XY{X: lo, Y: r.Input.Precision}, plotter.XY{X: hi, Y: r.Input.Precision}); err != nil {
		return nil, err
	}
	if err := r.scatter(pf, func(x RealRow) float64 { return x.Frequency }, func(x RealRow) float64 { return x.Precision }); err != nil {
		return nil, err
	}
	f1, err := render(r.Dataset+"-precision-frequency", [][]*plot.Plot{{pf}}, 16*vg.Centimeter, 11*vg.Centimeter)
	if err != nil {
		return nil, err
	}

	pr := plot.New()
	pr.Title.Text = title
	pr.X.Label.Text, pr.Y.Label.Text = "recall", "precision"
	xmin := math.Max(0, math.Floor(rmin*10-0.5)/10)
	pr.X.Min, pr.X.Max, pr.Y.Min, pr.Y.Max = xmin, 1.02, ymin, 1.02
	pr.Add(plotter.NewGrid())
	if err := refLine(pr, plotter.XY{X: xmin, Y: r.Input.Precision}, plotter.XY{X: 1.02, Y: r.Input.Precision}); err != nil {
		return nil, err
	}
	if err := refLine(pr, plotter.XY{X: r.Input.Recall, Y: ymin}, plotter.XY{X: r.Input.Recall, Y: 1.02}); err != nil {
		return nil, err
	}
	if err := r.scatter(pr, func(x RealRow) float64 { return x.Recall }, func(x RealRow) float64 { return x.Precision }); err != nil {
		return nil, err
	}
	f2, err := render(r.Dataset+"-precision-recall", [][]*plot.Plot{{pr}}, 16*vg.Centimeter, 11*vg.Centimeter)
	if err != nil {
		return nil, err
	}
	return []Figure{f1, f2}, nil
}

// Figures draws every figure of the synthetic study that its grids allow.
func (r *SyntheticReport) Figures() ([]Figure, error) {
	var out []Figure
	for _, g := range r.Config.Grids {
		for _, completed := range []bool{false, true} {
			f, err := r.F1Figure(g, completed)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		f, err := r.UniverseFigure(g)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
