package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/clearmatch/clearmatch/internal/atomicfile"
	"github.com/clearmatch/clearmatch/pipeline"
)

// storedPlan is the plan as the job's folder keeps it: the pair plan, the
// usable images its indices refer to, and their feature counts (CLEAR
// numbers observations image by image).
type storedPlan struct {
	Plan   *pipeline.PairPlan
	Images []pipeline.Image
	Counts []int
	off    []int
}

// offsets returns the global index of each usable image's first
// observation, with the total last.
func (p *storedPlan) offsets() []int {
	if p.off == nil {
		p.off = make([]int, len(p.Counts)+1)
		for k, n := range p.Counts {
			p.off[k+1] = p.off[k] + n
		}
	}
	return p.off
}

// imageOf returns the usable image that holds observation o, and o's
// index there.
func (p *storedPlan) imageOf(o int) (image, feature int) {
	off := p.offsets()
	k := sort.SearchInts(off[1:], o+1)
	return k, o - off[k]
}

const planFile = "plan.gob"

// writePlan writes p into dir atomically (a temporary file, then rename).
func writePlan(dir string, p *storedPlan) error {
	return writeGob(filepath.Join(dir, planFile), "the pair plan", p)
}

func readPlan(dir string) (*storedPlan, error) {
	var p storedPlan
	if err := readGob(filepath.Join(dir, planFile), "the pair plan", &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// writeGob writes v gob-encoded to path atomically; what names it in
// errors.
func writeGob(path, what string, v any) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return atomicfile.Write(path, b.Bytes())
}

// readGob reads what writeGob wrote at path into v.
func readGob(path, what string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	return nil
}
