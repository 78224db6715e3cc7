package refine

import (
	"fmt"
	"os"
)

// templateStore keeps the templates between Tracks' passes: in memory,
// or in a file (spill) with only their places in memory, so that a run's
// memory does not hold every track's patch at once.
type templateStore interface {
	put(track int, t *Template, outcome error) error
	// get returns the track's template or its outcome; err is a failure
	// to read it back.
	get(track int) (t *Template, outcome error, err error)
	close()
}

type memStore struct {
	tmpl    []*Template
	outcome []error
}

func newMemStore(tracks int) *memStore {
	return &memStore{tmpl: make([]*Template, tracks), outcome: make([]error, tracks)}
}

func (m *memStore) put(track int, t *Template, outcome error) error {
	m.tmpl[track], m.outcome[track] = t, outcome
	return nil
}

func (m *memStore) get(track int) (*Template, error, error) {
	return m.tmpl[track], m.outcome[track], nil
}

func (m *memStore) close() {}

// fileStore appends each template's encoding (AppendBinary) to a file in
// its folder and keeps 13 bytes a track. The file is unlinked as soon as
// it is made, so nothing is left behind even when the process is killed.
// After a failed write (a full disk) it keeps the rest in memory.
type fileStore struct {
	f       *os.File
	end     int64
	off     []int64
	size    []uint32
	outcome []byte
	buf     []byte
	mem     map[int]*Template // templates kept in memory after a failed write
}

func newFileStore(dir string, tracks int) (*fileStore, error) {
	f, err := os.CreateTemp(dir, "clearmatch-templates-*")
	if err != nil {
		return nil, fmt.Errorf("refine: a file for the templates: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("refine: a file for the templates: %w", err)
	}
	return &fileStore{f: f, off: make([]int64, tracks), size: make([]uint32, tracks), outcome: make([]byte, tracks)}, nil
}

func (s *fileStore) put(track int, t *Template, outcome error) error {
	c, err := OutcomeCode(outcome)
	if err != nil {
		return err
	}
	s.outcome[track] = c
	if outcome != nil {
		return nil
	}
	if s.mem == nil {
		if s.buf, err = t.AppendBinary(s.buf[:0]); err != nil {
			return err
		}
		if n, err := s.f.WriteAt(s.buf, s.end); err == nil && n == len(s.buf) {
			s.off[track], s.size[track] = s.end, uint32(len(s.buf))
			s.end += int64(len(s.buf))
			return nil
		}
		s.mem = map[int]*Template{}
	}
	s.mem[track] = t
	return nil
}

func (s *fileStore) get(track int) (*Template, error, error) {
	outcome, _ := OutcomeOf(s.outcome[track])
	if outcome != nil {
		return nil, outcome, nil
	}
	if t, ok := s.mem[track]; ok {
		return t, nil, nil
	}
	b := make([]byte, s.size[track])
	if _, err := s.f.ReadAt(b, s.off[track]); err != nil {
		return nil, nil, fmt.Errorf("refine: %s: %w", s.f.Name(), err)
	}
	t, rest, err := ReadTemplate(b)
	if err != nil || len(rest) != 0 {
		return nil, nil, fmt.Errorf("refine: %s: track %d's template does not read back", s.f.Name(), track)
	}
	return t, nil, nil
}

func (s *fileStore) close() { s.f.Close() }
