package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/internal/atomicfile"
	"github.com/clearmatch/clearmatch/pipeline"
)

// storedPlan is the plan as the job's folder keeps it: the pair plan and
// the usable images its indices refer to.
type storedPlan struct {
	Plan   *pipeline.PairPlan
	Images []pipeline.Image
}

const planFile = "plan.gob"

// writePlan writes p into dir atomically (a temporary file, then rename).
func writePlan(dir string, p *storedPlan) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(p); err != nil {
		return fmt.Errorf("the pair plan: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, planFile), b.Bytes())
}

func readPlan(dir string) (*storedPlan, error) {
	b, err := os.ReadFile(filepath.Join(dir, planFile))
	if err != nil {
		return nil, fmt.Errorf("the pair plan: %w", err)
	}
	var p storedPlan
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&p); err != nil {
		return nil, fmt.Errorf("the pair plan %s: %w", filepath.Join(dir, planFile), err)
	}
	return &p, nil
}
