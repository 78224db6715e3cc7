package localmap

import (
	"fmt"
	"slices"
)

// odometryCovers refuses detections that begin before the odometry's
// first reading or end after its last by more than overhang: the poses
// there would rest on no reading, or on the last one held for the rest of
// the run (a cut file), and every map built on them would be wrong
// without a word.
func (l *Log) odometryCovers(dets []Detection) error {
	odo := l.Odometry
	if len(odo) == 0 {
		return fmt.Errorf("%s: no odometry readings", l.odometryName())
	}
	slack := overhang(odo)
	first, last := odo[0].T, odo[len(odo)-1].T
	if d := dets[0]; d.T < first-slack {
		return fmt.Errorf("%s:%d: detection at %.6g s, %.3g s before %s's first reading: no odometry places it (-start skips it)", l.DetectionsFile, d.line, d.T, first-d.T, l.odometryName())
	}
	if d := dets[len(dets)-1]; d.T > last+slack {
		return fmt.Errorf("%s:%d: detection at %.6g s, %.3g s after %s's last reading: no odometry places it (a cut file? -duration keeps the part it covers)", l.DetectionsFile, d.line, d.T, d.T-last, l.odometryName())
	}
	return nil
}

// overhang is how far detections may reach beyond the odometry's ends:
// ten of its median reading intervals, and at least a second (two
// sensors' logs seldom start and stop together).
func overhang(odo []Reading) float64 {
	if len(odo) < 2 {
		return 1
	}
	gaps := make([]float64, len(odo)-1)
	for i := range gaps {
		gaps[i] = odo[i+1].T - odo[i].T
	}
	slices.Sort(gaps)
	return max(1, 10*gaps[len(gaps)/2])
}

func (l *Log) odometryName() string {
	if l.OdometryFile == "" {
		return "the odometry"
	}
	return l.OdometryFile
}
