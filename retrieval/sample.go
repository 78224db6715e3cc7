package retrieval

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// ChunkRows is how many sample rows k-means reads at a time: its memory is
// this many rows, not the sample, when the sample is in a file.
const ChunkRows = 8192

// sample holds the vocabulary's training rows, in memory or in a file.
type sample interface {
	add(rows []float32) error
	// len is the number of rows; chunk returns rows [lo, hi), valid until
	// the next call.
	len() int
	chunk(lo, hi int) ([]float32, error)
	close()
}

type memSample struct {
	dim int
	x   []float32
}

func (s *memSample) add(rows []float32) error { s.x = append(s.x, rows...); return nil }
func (s *memSample) len() int                 { return len(s.x) / s.dim }
func (s *memSample) chunk(lo, hi int) ([]float32, error) {
	return s.x[lo*s.dim : hi*s.dim], nil
}
func (s *memSample) close() { s.x = nil }

// fileSample keeps the rows in a file (little-endian float32), read back a
// chunk at a time.
type fileSample struct {
	dim, n int
	f      *os.File
	w      *bufio.Writer
	buf    []float32
	raw    []byte
}

func newFileSample(path string, dim int) (*fileSample, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("retrieval: the training sample: %w", err)
	}
	return &fileSample{dim: dim, f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (s *fileSample) add(rows []float32) error {
	var b [4]byte
	for _, v := range rows {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		if _, err := s.w.Write(b[:]); err != nil {
			return fmt.Errorf("retrieval: the training sample %s: %w", s.f.Name(), err)
		}
	}
	s.n += len(rows) / s.dim
	return nil
}

func (s *fileSample) len() int { return s.n }

func (s *fileSample) chunk(lo, hi int) ([]float32, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("retrieval: the training sample %s: %w", s.f.Name(), err)
	}
	n := (hi - lo) * s.dim
	if cap(s.buf) < n {
		s.buf = make([]float32, n)
	}
	if s.raw == nil {
		s.raw = make([]byte, 1<<16)
	}
	buf := s.buf[:n]
	for k := 0; k < n; { // through a small buffer of bytes
		raw := s.raw[:min(len(s.raw), 4*(n-k))]
		if _, err := s.f.ReadAt(raw, int64(lo*s.dim+k)*4); err != nil {
			return nil, fmt.Errorf("retrieval: the training sample %s: %w", s.f.Name(), err)
		}
		for q := 0; q < len(raw); q += 4 {
			buf[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[q:]))
			k++
		}
	}
	return buf, nil
}

func (s *fileSample) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// row copies row i of s.
func row(s sample, i, dim int) ([]float32, error) {
	r, err := s.chunk(i, i+1)
	return append([]float32(nil), r[:dim]...), err
}
