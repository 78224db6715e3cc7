package cmdline

import "github.com/clearmatch/clearmatch/clear"

// ClearFlags are CLEAR's flags as solve and match take them; Options
// checks them.
type ClearFlags struct {
	Assignment, Eigen      string
	Threshold              float64
	Universe, MaxComponent int
}

// Options are the flags' CLEAR options, or a usage error naming the flag.
func (o *ClearFlags) Options() (*clear.Options, error) {
	opts := &clear.Options{Threshold: o.Threshold, UniverseSize: o.Universe, MaxComponent: o.MaxComponent}
	if o.MaxComponent < 0 {
		return nil, Usagef("-max-component %d: want 0 (never split) or a positive size", o.MaxComponent)
	}
	if !(o.Threshold > 0) || o.Threshold > 2 {
		return nil, Usagef("-threshold %v: want a number in (0, 2]", o.Threshold)
	}
	if o.Universe < 0 {
		return nil, Usagef("-universe %d: want 0 (estimate) or a positive size", o.Universe)
	}
	var err error
	if opts.Assignment, err = OneOf("-assignment", o.Assignment, map[string]clear.Assignment{
		"greedy": clear.Greedy, "hungarian": clear.Hungarian}); err != nil {
		return nil, err
	}
	if opts.Eigensolver, err = OneOf("-eigen", o.Eigen, map[string]clear.Eigensolver{
		"auto": clear.EigenAuto, "dense": clear.EigenDense, "iterative": clear.EigenIterative}); err != nil {
		return nil, err
	}
	return opts, nil
}
