package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
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
	if err := os.MkdirAll(filepath.Dir(c.path(i)), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path(i)), strconv.Itoa(i)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path(i))
	}
	if err != nil {
		os.Remove(tmp.Name())
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
	max   int
	mu    sync.Mutex
	codes map[int][]float32
	use   map[int]int64
	tick  int64
}

func newCodeCache(store codeStore, max int) *codeCache {
	return &codeCache{store: store, max: max, codes: map[int][]float32{}, use: map[int]int64{}}
}

func (c *codeCache) get(i int) ([]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick++
	if code, ok := c.codes[i]; ok {
		c.use[i] = c.tick
		return code, nil
	}
	code, err := c.store.get(i)
	if err != nil {
		return nil, err
	}
	c.codes[i], c.use[i] = code, c.tick
	if len(c.codes) > c.max {
		oldest, t := -1, int64(-1)
		for j, u := range c.use {
			if t < 0 || u < t {
				oldest, t = j, u
			}
		}
		delete(c.codes, oldest)
		delete(c.use, oldest)
	}
	return code, nil
}

// bytes is the memory the cached codes hold.
func (c *codeCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, code := range c.codes {
		n += int64(len(code)) * 4
	}
	return n
}
