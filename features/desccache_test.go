package features

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// storedSets makes n sets of m features with integer descriptors, stores
// each in the feature cache dir and returns them compacted, with keys.
func storedSets(t *testing.T, dir string, n, m int) ([]*Set, []string) {
	t.Helper()
	var sets []*Set
	var keys []string
	for i := 0; i < n; i++ {
		s := &Set{Image: fmt.Sprintf("im%d.jpg", i), Width: 100, Height: 80}
		for k := 0; k < m; k++ {
			s.Keypoints = append(s.Keypoints, Keypoint{X: float32(k), Y: float32(i)})
			for d := 0; d < DescSize; d++ {
				s.Desc = append(s.Desc, float32((i*31+k*7+d)%256))
			}
		}
		key := CacheKey([]byte(s.Image), "test")
		if err := (Cache{Dir: dir}).Store(key, s); err != nil {
			t.Fatal(err)
		}
		if !s.Compact() {
			t.Fatal("integer descriptors not compacted")
		}
		sets, keys = append(sets, s), append(keys, key)
	}
	return sets, keys
}

// TestDescriptorCache: released sets give back exactly their descriptors,
// from memory while they fit the budget and from the feature cache after
// eviction; a missing or changed file is an error naming the image.
func TestDescriptorCache(t *testing.T) {
	dir := t.TempDir()
	sets, keys := storedSets(t, dir, 4, 10)
	want := make([][]uint8, len(sets))
	for i, s := range sets {
		want[i] = slices.Clone(s.Desc8)
	}
	one := int64(10 * DescSize)
	c := NewDescriptorCache(2 * one) // room for two sets
	for i, s := range sets {
		c.release(s, dir, keys[i])
		if !s.Released() || s.Desc8 != nil || s.Desc != nil {
			t.Fatalf("set %d still holds its descriptors", i)
		}
	}
	if c.Used() != 2*one || c.Loads() != 0 {
		t.Fatalf("after release: used %d, loads %d", c.Used(), c.Loads())
	}
	for round := 0; round < 2; round++ {
		for i, s := range sets {
			b, err := s.DescriptorBytes()
			if err != nil || !slices.Equal(b, want[i]) {
				t.Fatalf("set %d: %v", i, err)
			}
			f, err := s.LoadFloats()
			if err != nil || len(f) != len(want[i]) || f[3] != float32(want[i][3]) {
				t.Fatalf("set %d floats: %v", i, err)
			}
			if c.Used() > 2*one {
				t.Fatalf("used %d over the budget %d", c.Used(), 2*one)
			}
		}
	}
	// Cycling through four sets in a cache of two misses every time.
	if c.Loads() != 8 {
		t.Errorf("loads %d, want 8", c.Loads())
	}
	// Concurrent readers see the same bytes.
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				i := (k + w) % len(sets)
				if b, err := sets[i].DescriptorBytes(); err != nil || !slices.Equal(b, want[i]) {
					t.Errorf("concurrent read of set %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()

	// Set 1 out of memory for sure, then its file broken.
	for _, i := range []int{0, 2, 3} {
		sets[i].DescriptorBytes()
	}
	path := Cache{Dir: dir}.path(keys[1])
	b, _ := os.ReadFile(path)
	os.Remove(path)
	if _, err := sets[1].DescriptorBytes(); err == nil || !strings.Contains(err.Error(), "im1.jpg") {
		t.Errorf("missing file: %v", err)
	}
	// Another (valid) file under the same key: not these descriptors.
	sw := &Set{Image: "im1.jpg", Width: 100, Height: 80, Keypoints: make([]Keypoint, 10), Desc: make([]float32, 10*DescSize)}
	if err := (Cache{Dir: dir}).Store(keys[1], sw); err != nil {
		t.Fatal(err)
	}
	if _, err := sets[1].DescriptorBytes(); err == nil || !strings.Contains(err.Error(), "no longer holds") {
		t.Errorf("changed file: %v", err)
	}
	os.WriteFile(path, b, 0o644)
	if got, err := sets[1].DescriptorBytes(); err != nil || !slices.Equal(got, want[1]) {
		t.Errorf("restored file: %v", err)
	}
}

// TestLoadRows: the rows asked for, in their order, from a set holding
// floats, one holding bytes and one released and evicted; a row out of
// range is an error naming the image.
func TestLoadRows(t *testing.T) {
	dir := t.TempDir()
	sets, keys := storedSets(t, dir, 3, 6)
	fl := &Set{Image: "floats.jpg", Keypoints: make([]Keypoint, 6), Desc: make([]float32, 6*DescSize)}
	for k := range fl.Desc {
		fl.Desc[k] = float32(k) + 0.25 // not integers: must come back as they are
	}
	want := func(s []float32, rows []int) []float32 {
		var out []float32
		for _, r := range rows {
			out = append(out, s[r*DescSize:(r+1)*DescSize]...)
		}
		return out
	}
	all0, all1 := sets[0].Floats(), sets[1].Floats()
	c := NewDescriptorCache(1) // holds only the last set used
	for i := 1; i < 3; i++ {
		c.release(sets[i], dir, keys[i])
	}
	cases := []struct {
		name string
		s    *Set
		all  []float32
		rows []int
	}{
		{"floats", fl, fl.Desc, []int{5, 0, 2}},
		{"bytes", sets[0], all0, []int{1, 1, 4}},
		{"released, evicted", sets[1], all1, []int{3, 0}},
		{"none", sets[0], all0, nil},
	}
	for _, cs := range cases {
		got, err := cs.s.LoadRows(cs.rows)
		if err != nil || !slices.Equal(got, want(cs.all, cs.rows)) {
			t.Errorf("%s: rows %v: %v", cs.name, cs.rows, err)
		}
	}
	if c.Loads() == 0 {
		t.Error("the released set was not read back")
	}
	for _, r := range []int{-1, 6} {
		if _, err := sets[0].LoadRows([]int{r}); err == nil || !strings.Contains(err.Error(), "im0.jpg") {
			t.Errorf("row %d: %v", r, err)
		}
	}
}
