package main

// lru holds at most max values, dropping the least recently used. It is
// not safe for concurrent use: its owners lock around it.
type lru[K comparable, V any] struct {
	max  int
	vals map[K]V
	use  map[K]int64
	tick int64
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, vals: map[K]V{}, use: map[K]int64{}}
}

// get returns k's value and marks it used.
func (c *lru[K, V]) get(k K) (V, bool) {
	v, ok := c.vals[k]
	if ok {
		c.tick++
		c.use[k] = c.tick
	}
	return v, ok
}

// put stores k's value and drops the least recently used beyond max.
func (c *lru[K, V]) put(k K, v V) {
	c.tick++
	c.vals[k], c.use[k] = v, c.tick
	for len(c.vals) > c.max {
		var oldest K
		t := int64(-1)
		for j, u := range c.use {
			if t < 0 || u < t {
				oldest, t = j, u
			}
		}
		delete(c.vals, oldest)
		delete(c.use, oldest)
	}
}

func (c *lru[K, V]) len() int { return len(c.vals) }

// each calls f with every value held.
func (c *lru[K, V]) each(f func(V)) {
	for _, v := range c.vals {
		f(v)
	}
}
