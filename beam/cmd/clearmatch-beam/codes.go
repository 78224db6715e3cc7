package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/clearmatch/clearmatch/internal/atomicfile"
)

// codeStore keeps retrieval's codes in the job's folder, a file an image
// (little-endian float32), so that no bundle holds every image's code.
type codeStore struct{ dir string }

func (c codeStore) path(i int) string { return filepath.Join(c.dir, "codes", strconv.Itoa(i)) }

// put writes image i's code atomically: a retried bundle rewrites it.
func (c codeStore) put(i int, code []float32) error {
	b := make([]byte, 4*len(code))
	for k, v := range code {
		binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(v))
	}
	if err := atomicfile.Write(c.path(i), b); err != nil {
		return fmt.Errorf("retrieval's code of image %d: %w", i, err)
	}
	return nil
}

func (c codeStore) get(i int) ([]float32, error) {
	b, err := os.ReadFile(c.path(i))
	if err != nil {
		return nil, fmt.Errorf("retrieval's code of image %d: %w", i, err)
	}
	code := make([]float32, len(b)/4)
	for k := range code {
		code[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
	}
	return code, nil
}

// block reads the codes of images lo to hi-1.
func (c codeStore) block(lo, hi int) ([][]float32, error) {
	out := make([][]float32, hi-lo)
	for i := lo; i < hi; i++ {
		var err error
		if out[i-lo], err = c.get(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// codeCache keeps the codes completion read last: it reads an image's
// candidates' codes, most of them again for the next images.
type codeCache struct {
	store codeStore
	mu    sync.Mutex
	codes *lru[int, []float32]
}

func newCodeCache(store codeStore, max int) *codeCache {
	return &codeCache{store: store, codes: newLRU[int, []float32](max)}
}

func (c *codeCache) get(i int) ([]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if code, ok := c.codes.get(i); ok {
		return code, nil
	}
	code, err := c.store.get(i)
	if err != nil {
		return nil, err
	}
	c.codes.put(i, code)
	return code, nil
}

// bytes is the memory the cached codes hold.
func (c *codeCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	c.codes.each(func(code []float32) { n += int64(len(code)) * 4 })
	return n
}
