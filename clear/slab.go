package clear

// slab hands out zeroed slices carved from large chunks, so the thousands of
// tiny components of inputs like Graffiti cost a few allocations instead of
// several each. Slices never overlap and keep their chunk alive.
// Chunks start small and double up to slabChunk, so small problems stay
// cheap.
type slab[T any] struct {
	buf  []T
	next int // size of the next chunk
}

const slabChunk = 1 << 15

func (s *slab[T]) take(n int) []T {
	if n > slabChunk/4 {
		return make([]T, n)
	}
	if len(s.buf) < n {
		s.next = min(max(2*s.next, 256), slabChunk)
		s.buf = make([]T, max(s.next, n))
	}
	out := s.buf[:n:n]
	s.buf = s.buf[n:]
	return out
}

// slabs groups the slabs one Solve uses.
type slabs struct {
	f   slab[float64]
	i32 slab[int32]
	i   slab[int]
	b   slab[bool]
}
