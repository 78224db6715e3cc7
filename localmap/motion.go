package localmap

import (
	"fmt"
	"math"
)

// Motion turns one odometry reading, held for dt seconds, into the
// sensor's motion: the pose advances from p.
type Motion interface {
	// Step returns p advanced by the reading (u1, u2) over dt.
	Step(p Pose, u1, u2, dt float64) Pose
	// Check reports a model that cannot be integrated.
	Check() error
}

// Unicycle is a differential-drive robot's model: the readings are speed
// (m/s) and turn rate (rad/s), the sensor at the robot's centre.
type Unicycle struct{}

// Step integrates the turn at its midpoint (exact for a constant turn
// rate to second order).
func (Unicycle) Step(p Pose, v, w, dt float64) Pose {
	mid := p.Theta + w*dt/2
	return Pose{X: p.X + v*dt*math.Cos(mid), Y: p.Y + v*dt*math.Sin(mid), Theta: wrapAngle(p.Theta + w*dt)}
}

// Check implements Motion.
func (Unicycle) Check() error { return nil }

// Ackermann is a car's model as Victoria Park documents it (Guivant and
// Nebot 2001): the readings are the encoder's speed (m/s) and the
// steering angle (rad); Wheelbase L, the encoder's lateral offset H from
// the rear axle's centre, and the sensor A ahead of the rear axle and B
// to its left (metres). The pose is the sensor's.
type Ackermann struct {
	Wheelbase, EncoderOffset, SensorAhead, SensorLeft float64
}

// VictoriaPark is the Ackermann model of the Victoria Park car.
var VictoriaPark = Ackermann{Wheelbase: 2.83, EncoderOffset: 0.76, SensorAhead: 3.78, SensorLeft: 0.50}

// Step integrates the documented model with Euler steps.
func (a Ackermann) Step(p Pose, ve, steer, dt float64) Pose {
	tan := math.Tan(steer)
	v := ve / (1 - tan*a.EncoderOffset/a.Wheelbase)
	w := v / a.Wheelbase * tan
	s, c := math.Sincos(p.Theta)
	return Pose{
		X:     p.X + dt*(v*c-w*(a.SensorAhead*s+a.SensorLeft*c)),
		Y:     p.Y + dt*(v*s+w*(a.SensorAhead*c-a.SensorLeft*s)),
		Theta: wrapAngle(p.Theta + dt*w),
	}
}

// Check implements Motion.
func (a Ackermann) Check() error {
	if !(a.Wheelbase > 0) || !finite(a.EncoderOffset, a.SensorAhead, a.SensorLeft) {
		return fmt.Errorf("ackermann: wheelbase %v must be positive and the offsets finite", a.Wheelbase)
	}
	return nil
}
