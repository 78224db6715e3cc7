package tracks

// Options configure every stage. The zero value runs them all with their
// defaults.
type Options struct {
	Complete  CompleteOptions
	Refine    RefineOptions
	Weak      WeakOptions
	Calibrate CalibrateOptions
	Reproj    ReprojOptions
	MinTrack  MinTrackOptions
}

// AllOff returns Options with every stage off: CLEAR's tracks as they are.
func AllOff() Options {
	return Options{
		Complete:  CompleteOptions{Off: true},
		Refine:    RefineOptions{Off: true},
		Weak:      WeakOptions{Off: true, Loops: LoopOptions{Off: true}},
		Calibrate: CalibrateOptions{Off: true},
		Reproj:    ReprojOptions{Off: true},
	}
}

// ApplyDefaults fills every stage's fields left 0 with the values they
// stand for.
func (o *Options) ApplyDefaults() {
	o.Complete.ApplyDefaults()
	o.Weak.ApplyDefaults()
	o.Reproj.ApplyDefaults()
	o.MinTrack.ApplyDefaults()
}

// Validate reports options a stage cannot use.
func (o Options) Validate() error {
	for _, err := range []error{o.Complete.Validate(), o.Refine.Validate(), o.Weak.Validate(), o.Reproj.Validate(), o.MinTrack.Validate()} {
		if err != nil {
			return err
		}
	}
	return nil
}
