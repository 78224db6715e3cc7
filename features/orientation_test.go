package features

import (
	"math"
	"os"
	"slices"
	"testing"
)

// A linear ramp has one gradient direction everywhere; the orientation
// must be that direction, clockwise in image coordinates (y down).
func TestOrientationRamp(t *testing.T) {
	const w, h = 200, 200
	for _, tc := range []struct {
		name   string
		f      func(x, y float64) float64
		degree float64
	}{
		{"increasing x", func(x, y float64) float64 { return x }, 0},
		{"increasing y (down)", func(x, y float64) float64 { return y }, 90},
		{"decreasing x", func(x, y float64) float64 { return -x }, 180},
		{"diagonal", func(x, y float64) float64 { return x + y }, 45},
	} {
		img := make([]float32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				img[y*w+x] = float32(tc.f(float64(x), float64(y)))
			}
		}
		got := orientationAt(img, w, h, 100, 100, 10)
		diff := math.Abs(math.Mod(got-tc.degree+540, 360) - 180)
		if diff > 1 {
			t.Errorf("%s: orientation %.2f°, want %.0f°", tc.name, got, tc.degree)
		}
	}
}

func TestOctaveOf(t *testing.T) {
	// σ = 10 lies in octave 2, layer 2 of OpenCV's pyramid: 1.6·2^(2+2/3) ≈ 10.2.
	if o, l := octaveOf(10); o != 2 || l != 2 {
		t.Errorf("octaveOf(10) = %d, %d; want 2, 2", o, l)
	}
	if o, l := octaveOf(1.6); o != 0 || l != 1 {
		t.Errorf("octaveOf(1.6) = %d, %d; want 0, 1", o, l)
	}
}

func TestRootSIFT(t *testing.T) {
	d := make([]float32, 2*DescSize)
	for i := range d {
		d[i] = float32(i % 7)
	}
	RootSIFT(d)
	for k := 0; k < 2; k++ {
		var ss float64
		for _, v := range d[k*DescSize : (k+1)*DescSize] {
			ss += float64(v) * float64(v)
		}
		if math.Abs(ss-1) > 1e-5 {
			t.Errorf("descriptor %d: squared norm %v, want 1", k, ss)
		}
	}
}

func TestCacheRoundTrip(t *testing.T) {
	s := &Set{Width: 5, Height: 4, Keypoints: []Keypoint{{1, 2, 3, 4, 5}}, Desc: make([]float32, DescSize)}
	s.Desc[7] = 0.5
	c := Cache{Dir: t.TempDir()}
	key := CacheKey([]byte("img"), Options{}.Params())
	if _, ok := c.Load(key); ok {
		t.Fatal("hit on an empty cache")
	}
	if err := c.Store(key, s); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Load(key)
	if !ok || got.Width != 5 || got.Keypoints[0] != s.Keypoints[0] || got.Desc[7] != 0.5 {
		t.Fatalf("round trip: %+v, %v", got, ok)
	}
	// Every single-byte corruption and every truncation is detected.
	data := encodeSet(key, s)
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x40
		if _, err := decodeSet(key, bad); err == nil {
			t.Fatalf("corruption at byte %d not detected", i)
		}
	}
	for n := 0; n < len(data); n++ {
		if _, err := decodeSet(key, data[:n]); err == nil {
			t.Fatalf("truncation to %d bytes not detected", n)
		}
	}
	if CacheKey([]byte("img"), Options{}.Params()) == CacheKey([]byte("img"), Options{RootSIFT: true}.Params()) {
		t.Error("options do not change the cache key")
	}
	// Two valid files swapped: each is another image's, so neither is used.
	key2 := CacheKey([]byte("img2"), Options{}.Params())
	if err := c.Store(key2, &Set{Width: 9, Height: 9}); err != nil {
		t.Fatal(err)
	}
	p1, p2 := c.path(key), c.path(key2)
	tmp := p1 + ".swap"
	if os.Rename(p1, tmp) != nil || os.Rename(p2, p1) != nil || os.Rename(tmp, p2) != nil {
		t.Fatal("swap failed")
	}
	if s, ok := c.Load(key); ok {
		t.Errorf("a swapped file was used for the wrong image: %dx%d", s.Width, s.Height)
	}
	if _, ok := c.Load(key2); ok {
		t.Error("a swapped file was used for the wrong image")
	}
}

func FuzzDecodeSet(f *testing.F) {
	key := CacheKey(nil, "")
	f.Add(encodeSet(key, &Set{Width: 1, Height: 1, Keypoints: []Keypoint{{}}, Desc: make([]float32, DescSize)}))
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeSet(key, data)
		if err == nil && len(s.Desc) != len(s.Keypoints)*DescSize {
			t.Fatalf("inconsistent set")
		}
	})
}

func TestCompact(t *testing.T) {
	s := &Set{Keypoints: make([]Keypoint, 2), Desc: make([]float32, 2*DescSize)}
	for k := range s.Desc {
		s.Desc[k] = float32(k % 256)
	}
	want := append([]float32(nil), s.Desc...)
	wantBytes := s.Bytes()
	if !s.Compact() || s.Desc != nil || len(s.Desc8) != 2*DescSize {
		t.Fatalf("integer descriptors not compacted: %d floats, %d bytes", len(s.Desc), len(s.Desc8))
	}
	if !slices.Equal(s.Floats(), want) || !slices.Equal(s.Descriptor(1), want[DescSize:]) || !slices.Equal(s.Bytes(), wantBytes) {
		t.Fatal("compact descriptors read back differently")
	}
	for _, bad := range []float32{0.5, -1, 256} {
		r := &Set{Keypoints: make([]Keypoint, 1), Desc: make([]float32, DescSize)}
		r.Desc[7] = bad
		if r.Compact() || r.Desc8 != nil {
			t.Errorf("value %v compacted", bad)
		}
	}
	if b := (&Set{Desc: []float32{-3, 300, 2.6}}).Bytes(); !slices.Equal(b, []uint8{0, 255, 3}) {
		t.Errorf("Bytes of float descriptors: %v", b)
	}
}
