package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"

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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, planFile+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, planFile))
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
