package localmap

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SimConfig configures Simulate: the CLEAR paper's forest flight in
// miniature. Zero fields take the defaults given.
type SimConfig struct {
	// Seed of every random draw.
	Seed uint64
	// Duration of the run (s, 120), Speed (m/s, 2), detection Rate (Hz,
	// 1) and odometry rate (Hz, 10).
	Duration, Speed, Rate, OdometryRate float64
	// Spacing is the mean distance between neighbouring landmarks (m, 5);
	// Range the sensor's reach (m, 12).
	Spacing, Range float64
	// RangeNoise (m, 0.05) and BearingNoise (rad, 0.01) are the
	// detections' standard deviations.
	RangeNoise, BearingNoise float64
	// Miss is the probability that a landmark in range goes undetected
	// (0.1); Spurious the mean number of false detections a scan (0.3).
	Miss, Spurious float64
	// SpeedNoise (relative, 0.02) and TurnNoise (rad/s, 0.01) are the
	// odometry's: it drifts.
	SpeedNoise, TurnNoise float64
	// Radius, when positive, makes the path circle (metres), so that the
	// run comes back to the landmarks it saw: a robot in an arena.
	// Otherwise the path winds gently onwards, as the paper's flight.
	Radius float64
	// FieldOfView, when positive, is the sensor's angle of view (rad),
	// centred straight ahead, as a forward camera's; 0 sees all around.
	FieldOfView float64
	// Margin is how far beyond the path landmarks are scattered (m; 0:
	// Range).
	Margin float64
	// Arena, when set (width and height, m, each at least 2), bounds the
	// run to a room, as a ground robot's: Landmarks landmarks
	// (DefaultSimLandmarks) lie in it at random, no two closer than
	// LandmarkGap (m; 0: half their mean spacing), and each robot starts
	// at a random pose in it and wanders, turning away from the walls.
	// Spacing, Radius and Margin are then unused.
	Arena       [2]float64
	Landmarks   int
	LandmarkGap float64
}

func (c *SimConfig) defaults() {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Duration, 120)
	def(&c.Speed, 2)
	def(&c.Rate, 1)
	def(&c.OdometryRate, 10)
	def(&c.Spacing, 5)
	def(&c.Range, 12)
	def(&c.RangeNoise, 0.05)
	def(&c.BearingNoise, 0.01)
	def(&c.Miss, 0.1)
	def(&c.Spurious, 0.3)
	def(&c.SpeedNoise, 0.02)
	def(&c.TurnNoise, 0.01)
	if c.Landmarks == 0 {
		c.Landmarks = DefaultSimLandmarks
	}
}

// DefaultSimLandmarks is SimConfig.Landmarks' default: the held-out lab's
// 15 landmarks.
const DefaultSimLandmarks = 15

// arena reports whether c bounds the run to a room.
func (c *SimConfig) arena() bool { return c.Arena[0] > 0 || c.Arena[1] > 0 }

// Simulate makes a robot's log (unicycle odometry, bearing 0 straight
// ahead) of a run through landmarks scattered on a plane: the path winds
// gently, each scan detects the landmarks in range (some missed, some
// false detections added), and the odometry drifts. Every detection
// carries its true identity: the landmark's index, or "spurious-N" for a
// false one (never seen twice). The log's Reference is the true path at
// every scan, in the odometry's frame.
func Simulate(c SimConfig) (*Log, error) {
	logs, err := SimulateTeam(c, 1)
	if err != nil {
		return nil, err
	}
	return logs[0], nil
}

// SimulateTeam is Simulate for n robots among the same landmarks (true
// identities shared), each with its own odometry, noise and start: on a
// circle (Radius) they start evenly around it, in an arena at random,
// otherwise side by side, Range apart. Each log's odometry starts at its
// own origin; its Reference is its true path in the first robot's frame
// (in an arena, the room's).
func SimulateTeam(c SimConfig, n int) ([]*Log, error) {
	c.defaults()
	if !(c.Duration > 0 && c.Speed > 0 && c.Rate > 0 && c.OdometryRate > 0 && c.Spacing > 0 && c.Range > 0) || c.Radius < 0 || c.Margin < 0 ||
		!(c.FieldOfView >= 0 && c.FieldOfView <= 2*math.Pi) || n < 1 || c.arena() && !(c.Arena[0] >= 2 && c.Arena[1] >= 2 && c.Landmarks > 0 && c.LandmarkGap >= 0 && !math.IsInf(c.LandmarkGap, 0)) {
		return nil, fmt.Errorf("simulate: %+v, %d robots: durations, rates and distances must be positive, the field of view at most 2π, an arena at least 2 m each way with a landmark or more and a finite gap, one robot or more", c, n)
	}
	if c.arena() && c.Duration*c.OdometryRate > 1e7 {
		return nil, fmt.Errorf("simulate: %.0f s at %.0f Hz: more than 10^7 odometry readings", c.Duration, c.OdometryRate)
	}
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	turn := func(t float64) float64 { return 0.15 * math.Sin(2*math.Pi*t/40) }
	if c.Radius > 0 {
		turn = func(t float64) float64 { return c.Speed/c.Radius + 0.05*math.Sin(2*math.Pi*t/40) }
	}
	// The true paths, at the odometry rate.
	dt := 1 / c.OdometryRate
	var times []float64
	for t := 0.0; t <= c.Duration+1e-9; t += dt {
		times = append(times, t)
	}
	paths := make([][]Pose, n)
	turns := make([][]float64, n) // each robot's turn rate at each step
	var marks [][2]float64
	if c.arena() {
		var err error
		if marks, err = scatterArena(rng, c.Arena, c.Landmarks, c.LandmarkGap); err != nil {
			return nil, err
		}
		for r := range paths {
			paths[r], turns[r] = wander(rng, &c, times)
		}
	} else {
		var all []Pose
		for r := range paths {
			p := Pose{Y: float64(r) * c.Range}
			if c.Radius > 0 { // around the circle through the origin, centred at (0, Radius)
				a := 2 * math.Pi * float64(r) / float64(n)
				p = Pose{X: c.Radius * math.Sin(a), Y: c.Radius * (1 - math.Cos(a)), Theta: a}
			}
			for _, t := range times {
				w := turn(t)
				paths[r], turns[r] = append(paths[r], p), append(turns[r], w)
				p = Unicycle{}.Step(p, c.Speed, w, dt)
			}
			all = append(all, paths[r]...)
		}
		margin := c.Range
		if c.Margin > 0 {
			margin = c.Margin
		}
		marks = scatter(rng, all, c.Spacing, margin)
	}
	every := max(1, int(math.Round(c.OdometryRate/c.Rate))) // odometry steps a scan
	var logs []*Log
	spurious := 0
	for r, truth := range paths {
		l := &Log{OdometryFile: "simulated", DetectionsFile: "simulated"}
		for k, t := range times {
			l.Odometry = append(l.Odometry, Reading{T: t, U1: c.Speed * (1 + c.SpeedNoise*rng.NormFloat64()), U2: turns[r][k] + c.TurnNoise*rng.NormFloat64()})
			if k%every != 0 {
				continue
			}
			l.Reference = append(l.Reference, Fix{T: t, X: truth[k].X, Y: truth[k].Y})
			seen := scan(rng, &c, t, truth[k], marks, spurious)
			spurious += len(seen)
			l.Detections = append(l.Detections, seen...)
		}
		logs = append(logs, l)
	}
	return logs, nil
}

// scatter places landmarks about spacing apart (a jittered grid) over the
// path's reach.
func scatter(rng *rand.Rand, path []Pose, spacing, reach float64) [][2]float64 {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range path {
		x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
	}
	var out [][2]float64
	for x := x0 - reach; x <= x1+reach; x += spacing {
		for y := y0 - reach; y <= y1+reach; y += spacing {
			out = append(out, [2]float64{x + (rng.Float64()-0.5)*0.8*spacing, y + (rng.Float64()-0.5)*0.8*spacing})
		}
	}
	return out
}

// scatterArena places n landmarks in a room of size (width, height) at
// random, no two closer than apart (0: half their mean spacing), each
// tried a thousand times; a landmark that finds no place that far from
// the others is an error, not a landmark placed closer.
func scatterArena(rng *rand.Rand, size [2]float64, n int, apart float64) ([][2]float64, error) {
	if apart == 0 {
		apart = 0.5 * math.Sqrt(size[0]*size[1]/float64(n))
	}
	var out [][2]float64
	for len(out) < n {
		placed := false
		for try := 0; try < 1000 && !placed; try++ {
			p := [2]float64{rng.Float64() * size[0], rng.Float64() * size[1]}
			if !nearAny(out, p, apart) {
				out, placed = append(out, p), true
			}
		}
		if !placed {
			return nil, fmt.Errorf("simulate: %d landmarks at least %.3g m apart do not fit a %.3g × %.3g m room (%d placed); want a smaller gap or fewer landmarks", n, apart, size[0], size[1], len(out))
		}
	}
	return out, nil
}

func nearAny(pts [][2]float64, p [2]float64, d float64) bool {
	for _, q := range pts {
		if math.Hypot(p[0]-q[0], p[1]-q[1]) < d {
			return true
		}
	}
	return false
}

// wander is a robot's path through the room c.Arena at c.Speed, from a
// random pose at least half a metre from the walls: its turn rate
// wanders (a random walk pulled back to straight ahead within about 5 s)
// and turns it as hard as a 0.5 m radius allows, towards the room's
// centre, while the point a metre ahead is outside the room less half a
// metre. It returns the pose and the turn rate at each time.
func wander(rng *rand.Rand, c *SimConfig, times []float64) ([]Pose, []float64) {
	const inset, ahead, radius, settle, spread = 0.5, 1.0, 0.5, 5.0, 0.2
	w, h := c.Arena[0], c.Arena[1]
	p := Pose{X: inset + rng.Float64()*(w-2*inset), Y: inset + rng.Float64()*(h-2*inset), Theta: (2*rng.Float64() - 1) * math.Pi}
	dt := 1 / c.OdometryRate
	var path []Pose
	var turns []float64
	free := 0.0
	for range times {
		free += -free*dt/settle + spread*math.Sqrt(dt)*rng.NormFloat64()
		turn := free
		ax, ay := p.Apply(ahead, 0)
		if ax < inset || ax > w-inset || ay < inset || ay > h-inset {
			toCentre := math.Atan2(h/2-p.Y, w/2-p.X) - p.Theta
			turn = math.Copysign(c.Speed/radius, math.Remainder(toCentre, 2*math.Pi))
			free = 0
		}
		path, turns = append(path, p), append(turns, turn)
		p = Unicycle{}.Step(p, c.Speed, turn, dt)
	}
	return path, turns
}

// scan is one scan from pose p: the landmarks in range, noisy, some
// missed, and false detections.
func scan(rng *rand.Rand, c *SimConfig, t float64, p Pose, marks [][2]float64, seen int) []Detection {
	var out []Detection
	for i, m := range marks {
		x, y := p.Inverse(m[0], m[1])
		r := math.Hypot(x, y)
		if r > c.Range || c.FieldOfView > 0 && math.Abs(math.Atan2(y, x)) > c.FieldOfView/2 || rng.Float64() < c.Miss {
			continue
		}
		out = append(out, Detection{T: t, Range: math.Abs(r + c.RangeNoise*rng.NormFloat64()), Bearing: math.Atan2(y, x) + c.BearingNoise*rng.NormFloat64(), Truth: fmt.Sprint(i)})
	}
	view := 2 * math.Pi
	if c.FieldOfView > 0 {
		view = c.FieldOfView
	}
	for n := poisson(rng, c.Spurious); n > 0; n-- {
		out = append(out, Detection{T: t, Range: rng.Float64() * c.Range, Bearing: (rng.Float64() - 0.5) * view, Truth: fmt.Sprintf("spurious-%d", seen+len(out))})
	}
	return out
}

// poisson draws from a Poisson distribution of mean lambda (Knuth's
// method, fine for the small means here).
func poisson(rng *rand.Rand, lambda float64) int {
	limit, p, n := math.Exp(-lambda), rng.Float64(), 0
	for p > limit {
		p *= rng.Float64()
		n++
	}
	return n
}
