package clear

import (
	"fmt"
	"math"
	"sort"
)

// Association is one pairwise association between two observations, in
// global numbering: observations are numbered view by view, in the order of
// Problem.ViewSizes, starting at 0.
//
// An association names an unordered pair: listing {A: 3, B: 9} means that 3 and 9
// are associated, with the same weight both ways. A caller whose input is not
// symmetric may list both orders with different weights; CLEAR then uses the
// symmetric part (P + Pᵀ)/2, as the paper prescribes (Remark 1).
type Association struct {
	A, B int
	// W is the association's weight (a match score) in (0, 1]. The zero
	// value means 1, so binary input needs no weights.
	W float64
}

// weight returns the effective weight of a, with the zero value meaning 1.
func (a Association) weight() float64 {
	if a.W == 0 {
		return 1
	}
	return a.W
}

// Problem is the input of Solve: the number of observations in each view and
// the sparse pairwise associations between them (the aggregate association
// matrix P̃ of the paper, eq. 1, without its identity diagonal blocks).
//
// A Problem can be written as a literal, or built incrementally with AddView
// and Associate. Solve never changes it.
type Problem struct {
	ViewSizes    []int
	Associations []Association
	// Directed, when true, makes each association one entry (A, B) of the
	// possibly non-symmetric matrix P̃: an association listed in one order
	// only then counts with weight w/2 after symmetrization (P̃ + P̃ᵀ)/2. By
	// default associations are unordered pairs.
	Directed bool
}

// AddView appends a view holding n observations and returns the global index
// of its first observation. It panics if n is negative.
func (p *Problem) AddView(n int) (first int) {
	if n < 0 {
		panic(fmt.Sprintf("clear: AddView with negative size %d", n))
	}
	first = p.NumObservations()
	p.ViewSizes = append(p.ViewSizes, n)
	return first
}

// Associate appends the association between observations a and b with weight
// w (0 means 1). It checks the association against the views added so far.
func (p *Problem) Associate(a, b int, w float64) error {
	as := Association{A: a, B: b, W: w}
	if err := checkAssociation(as, p.NumObservations()); err != nil {
		return &InputError{Index: len(p.Associations), Err: err}
	}
	p.Associations = append(p.Associations, as)
	return nil
}

// NumObservations returns the total number of observations l.
func (p *Problem) NumObservations() int {
	l := 0
	for _, n := range p.ViewSizes {
		l += n
	}
	return l
}

// InputError reports an invalid association or view size. Index is the
// position of the association in Problem.Associations, or -1 when the error
// is about the views.
type InputError struct {
	Index int
	Err   error
}

func (e *InputError) Error() string {
	if e.Index < 0 {
		return "clear: " + e.Err.Error()
	}
	return fmt.Sprintf("clear: association %d: %v", e.Index, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

func checkAssociation(as Association, l int) error {
	if as.A < 0 || as.A >= l {
		return fmt.Errorf("observation index %d out of range [0, %d)", as.A, l)
	}
	if as.B < 0 || as.B >= l {
		return fmt.Errorf("observation index %d out of range [0, %d)", as.B, l)
	}
	w := as.W
	if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 || w > 1 {
		return fmt.Errorf("weight %v of (%d, %d) is not in (0, 1]", w, as.A, as.B)
	}
	return nil
}

// viewIndex maps global observation indices to views.
type viewIndex struct {
	offsets []int // offsets[v] is the first observation of view v; len = views+1
}

func newViewIndex(sizes []int) viewIndex {
	off := make([]int, len(sizes)+1)
	for v, n := range sizes {
		off[v+1] = off[v] + n
	}
	return viewIndex{offsets: off}
}

func (vi viewIndex) numObs() int { return vi.offsets[len(vi.offsets)-1] }

// view returns the view that holds observation i.
func (vi viewIndex) view(i int) int {
	// The first offset greater than i, minus one.
	return sort.SearchInts(vi.offsets[1:], i+1)
}

// validate checks the whole problem and returns the first error, naming it.
func (p *Problem) validate() (viewIndex, error) {
	l := 0
	for v, n := range p.ViewSizes {
		if n < 0 {
			return viewIndex{}, &InputError{Index: -1, Err: fmt.Errorf("view %d has negative size %d", v, n)}
		}
		if n > MaxObservations-l {
			return viewIndex{}, &InputError{Index: -1, Err: fmt.Errorf("view sizes add up to more than %d observations", MaxObservations)}
		}
		l += n
	}
	if err := checkSize(l, len(p.Associations)); err != nil {
		return viewIndex{}, &InputError{Index: -1, Err: err}
	}
	vi := newViewIndex(p.ViewSizes)
	l = vi.numObs()
	for k, as := range p.Associations {
		// The fast test admits exactly what checkAssociation admits (NaN
		// fails both comparisons); the slow one names the problem.
		if uint(as.A) < uint(l) && uint(as.B) < uint(l) && as.W >= 0 && as.W <= 1 {
			continue
		}
		if err := checkAssociation(as, l); err != nil {
			return vi, &InputError{Index: k, Err: err}
		}
	}
	return vi, nil
}

// MaxObservations bounds a problem's observations (indices are stored in
// 32 bits).
const MaxObservations = 1<<31 - 1

// FreeObservations is how many observations a problem may hold whatever
// its associations; beyond it, a problem may hold at most
// ObservationsPerAssociation observations per association. Every
// observation costs memory (about 100 bytes in the solve) and a line of
// output, so sizes that no association backs up are refused instead of
// exhausting memory: a file declaring 10¹² observations is a mistake.
const (
	FreeObservations           = 1 << 22
	ObservationsPerAssociation = 128
)

// checkSize applies the bound of FreeObservations.
func checkSize(l, associations int) error {
	if l <= FreeObservations || l/ObservationsPerAssociation <= associations {
		return nil
	}
	return fmt.Errorf("the view sizes declare %d observations, more than %d associations can back up (at most %d, or %d per association)",
		l, associations, FreeObservations, ObservationsPerAssociation)
}
