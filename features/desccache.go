package features

import (
	"container/list"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"sync"
)

// DescriptorCache keeps the descriptors of the sets released into it (as
// bytes) in memory within a budget, least recently used out first; a set
// whose descriptors were evicted reads them back from the feature-cache
// file they were stored in. An Extractor with Descriptors set releases
// every set it has stored in the feature cache, so a folder's descriptors
// need not all be in memory: memory follows the images in use, not
// images × features. Set.DescriptorBytes and Set.LoadFloats read released
// sets. It is safe for concurrent use.
type DescriptorCache struct {
	budget int64

	mu    sync.Mutex
	ll    list.List // of *heldEntry, most recently used first
	used  int64
	loads int64
}

// held is where a released set's descriptors are: in c's list (elem, nil
// when evicted), and in the feature-cache file dir/key.feat, whose
// descriptors must have checksum crc.
type held struct {
	c        *DescriptorCache
	dir, key string
	crc      uint32
	elem     *list.Element // guarded by c.mu
}

type heldEntry struct {
	s *Set
	b []uint8
}

// NewDescriptorCache returns a cache that holds at most budget bytes of
// descriptors, but always the most recently used set's.
func NewDescriptorCache(budget int64) *DescriptorCache {
	return &DescriptorCache{budget: budget}
}

// Loads returns how many times a set's descriptors were read back from the
// feature cache after being evicted.
func (c *DescriptorCache) Loads() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loads
}

// Used returns the bytes of descriptors held now.
func (c *DescriptorCache) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// release moves s's descriptors, which must be bytes (Desc8), into c; the
// feature cache holds them under dir and key.
func (c *DescriptorCache) release(s *Set, dir, key string) {
	b := s.Desc8
	s.Desc, s.Desc8 = nil, nil
	s.held = &held{c: c, dir: dir, key: key, crc: crc32.ChecksumIEEE(b)}
	c.mu.Lock()
	c.put(s, b)
	c.mu.Unlock()
}

// put adds s's descriptors b at the front and evicts from the back down to
// the budget, keeping b. c.mu must be held.
func (c *DescriptorCache) put(s *Set, b []uint8) {
	s.held.elem = c.ll.PushFront(&heldEntry{s: s, b: b})
	c.used += int64(len(b))
	for c.used > c.budget && c.ll.Len() > 1 {
		e := c.ll.Back()
		h := e.Value.(*heldEntry)
		c.ll.Remove(e)
		c.used -= int64(len(h.b))
		h.s.held.elem = nil
	}
}

// get returns the descriptors of s, released into c.
func (c *DescriptorCache) get(s *Set) ([]uint8, error) {
	c.mu.Lock()
	if e := s.held.elem; e != nil {
		c.ll.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*heldEntry).b, nil
	}
	c.mu.Unlock()
	b, err := s.held.load(s.Len())
	if err != nil {
		return nil, fmt.Errorf("%s: reading its descriptors back from the feature cache: %w", s.Image, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loads++
	if e := s.held.elem; e != nil { // another worker loaded it meanwhile
		c.ll.MoveToFront(e)
		return e.Value.(*heldEntry).b, nil
	}
	c.put(s, b)
	return b, nil
}

var errChanged = errors.New("the file no longer holds the descriptors extracted in this run")

// load reads the descriptors of n features from the feature-cache file.
func (h *held) load(n int) ([]uint8, error) {
	path := Cache{Dir: h.dir}.path(h.key)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := decodeSet(h.key, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Len() != n || !s.Compact() && s.Len() > 0 || crc32.ChecksumIEEE(s.Desc8) != h.crc {
		return nil, fmt.Errorf("%s: %w", path, errChanged)
	}
	return s.Desc8, nil
}

// Released reports whether s's descriptors were released into a
// DescriptorCache (Desc and Desc8 are then nil; DescriptorBytes and
// LoadFloats read them).
func (s *Set) Released() bool { return s.held != nil }

// DescriptorBytes returns the descriptors as bytes, as Bytes does, also
// for a released set, whose descriptors may have to be read back from the
// feature cache (hence the error).
func (s *Set) DescriptorBytes() ([]uint8, error) {
	if s.held == nil {
		return s.Bytes(), nil
	}
	return s.held.c.get(s)
}

// LoadFloats returns the descriptors as float32, as Floats does (Desc
// itself when the set holds floats), also for a released set.
func (s *Set) LoadFloats() ([]float32, error) {
	if s.held == nil {
		return s.Floats(), nil
	}
	b, err := s.held.c.get(s)
	if err != nil {
		return nil, err
	}
	return floats(b), nil
}

// LoadRows returns the descriptors of the listed features as float32,
// DescSize values each in the order of rows, also for a released set
// (read back from the feature cache if evicted). It converts only those
// rows, where LoadFloats converts all.
func (s *Set) LoadRows(rows []int) ([]float32, error) {
	n := s.Len()
	for _, r := range rows {
		if r < 0 || r >= n {
			return nil, fmt.Errorf("%s: feature %d of %d", s.Image, r, n)
		}
	}
	out := make([]float32, 0, len(rows)*DescSize)
	if s.held == nil && s.Desc8 == nil {
		if len(s.Desc) != n*DescSize {
			return nil, fmt.Errorf("%s: %d descriptor values for %d features", s.Image, len(s.Desc), n)
		}
		for _, r := range rows {
			out = append(out, s.Desc[r*DescSize:(r+1)*DescSize]...)
		}
		return out, nil
	}
	b, err := s.DescriptorBytes()
	if err != nil {
		return nil, err
	}
	if len(b) != n*DescSize {
		return nil, fmt.Errorf("%s: %d descriptor values for %d features", s.Image, len(b), n)
	}
	for _, r := range rows {
		for _, v := range b[r*DescSize : (r+1)*DescSize] {
			out = append(out, float32(v))
		}
	}
	return out, nil
}
