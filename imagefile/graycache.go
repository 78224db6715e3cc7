package imagefile

import (
	"container/list"
	"image"
	"sync"
)

// GrayCache keeps decoded grayscale images for a later stage that reads the
// same files again (refinement reads each photo twice after extraction
// decoded it once), within a byte budget: the most recently stored are
// kept. An image is keyed by its path and the pixel cap it was decoded
// under. It is safe for concurrent use; images it hands out must not be
// changed.
type GrayCache struct {
	budget int64

	mu   sync.Mutex
	ll   list.List // of *grayEntry, most recently stored first
	byID map[grayKey]*list.Element
	used int64
}

type grayKey struct {
	path      string
	maxPixels int64
}

type grayEntry struct {
	key grayKey
	g   *image.Gray
}

// NewGrayCache returns a cache that holds at most budget bytes of pixels.
func NewGrayCache(budget int64) *GrayCache {
	return &GrayCache{budget: budget, byID: map[grayKey]*list.Element{}}
}

// Put keeps g, the image at path decoded under maxPixels, unless it alone
// exceeds the budget; older images leave to make room.
func (c *GrayCache) Put(path string, maxPixels int64, g *image.Gray) {
	if c == nil || g == nil {
		return
	}
	size := int64(len(g.Pix))
	k := grayKey{path, maxPixels}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[k]; ok {
		c.remove(e)
	}
	if size > c.budget {
		return
	}
	for c.used+size > c.budget {
		c.remove(c.ll.Back())
	}
	c.byID[k] = c.ll.PushFront(&grayEntry{k, g})
	c.used += size
}

func (c *GrayCache) remove(e *list.Element) {
	ge := c.ll.Remove(e).(*grayEntry)
	delete(c.byID, ge.key)
	c.used -= int64(len(ge.g.Pix))
}

// Get returns the image at path decoded under maxPixels, or nil.
func (c *GrayCache) Get(path string, maxPixels int64) *image.Gray {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[grayKey{path, maxPixels}]; ok {
		return e.Value.(*grayEntry).g
	}
	return nil
}

// Used returns the bytes of pixels held.
func (c *GrayCache) Used() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// OpenGray is Open(path, maxPixels).Gray(), from c when it holds the
// image.
func (c *GrayCache) OpenGray(path string, maxPixels int64) (*image.Gray, error) {
	if g := c.Get(path, maxPixels); g != nil {
		return g, nil
	}
	img, err := Open(path, maxPixels)
	if err != nil {
		return nil, err
	}
	return img.Gray(), nil
}
