package imagefile

import (
	"image"
	"testing"
)

func TestGrayCache(t *testing.T) {
	gray := func(n int) *image.Gray { return image.NewGray(image.Rect(0, 0, n, 1)) }
	c := NewGrayCache(100)
	a, b, big := gray(40), gray(50), gray(101)
	c.Put("a", 0, a)
	c.Put("b", 0, b)
	c.Put("big", 0, big) // alone above the budget: not kept, nothing evicted
	if c.Get("a", 0) != a || c.Get("b", 0) != b || c.Get("big", 0) != nil || c.Used() != 90 {
		t.Fatalf("a %v b %v big %v, %d bytes", c.Get("a", 0) != nil, c.Get("b", 0) != nil, c.Get("big", 0) != nil, c.Used())
	}
	if c.Get("a", 1000) != nil {
		t.Error("an image decoded under another pixel cap was given")
	}
	c.Put("c", 0, gray(30)) // a, the oldest, leaves
	if c.Get("a", 0) != nil || c.Get("b", 0) != b || c.Get("c", 0) == nil || c.Used() != 80 {
		t.Errorf("after c: a %v b %v c %v, %d bytes", c.Get("a", 0) != nil, c.Get("b", 0) != nil, c.Get("c", 0) != nil, c.Used())
	}
	c.Put("b", 0, gray(10)) // replaced, not counted twice
	if c.Used() != 40 || len(c.Get("b", 0).Pix) != 10 {
		t.Errorf("after replacing b: %d bytes", c.Used())
	}
	var none *GrayCache
	none.Put("a", 0, a)
	if none.Get("a", 0) != nil || none.Used() != 0 {
		t.Error("a nil cache held an image")
	}
	if _, err := none.OpenGray("no/such/file.png", 0); err == nil {
		t.Error("OpenGray of a missing file gave no error")
	}
}
