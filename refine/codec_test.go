package refine

import (
	"bytes"
	"errors"
	"image"
	"math"
	"reflect"
	"testing"
)

func TestTemplateEncoding(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 60, 60))
	for k := range g.Pix {
		g.Pix[k] = uint8(k*37 + k/60*11)
	}
	im := NewImage(g)
	for _, f := range []Frame{{X: 30.25, Y: 29.5, Scale: 1.3, Angle: 12.5}, {X: 30, Y: 30, Scale: 4, Angle: -170}} {
		tm, err := NewTemplate(im, f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := tm.AppendBinary([]byte{9})
		if err != nil {
			t.Fatal(err)
		}
		got, rest, err := ReadTemplate(append(b[1:], 7))
		if err != nil || !reflect.DeepEqual(got, tm) || !bytes.Equal(rest, []byte{7}) {
			t.Errorf("frame %v: read back %v, %v, rest %v", f, got, err, rest)
		}
		if _, _, err := ReadTemplate(b[1 : len(b)-1]); !errors.Is(err, errShortTemplate) {
			t.Errorf("a cut encoding: %v", err)
		}
	}
	nan := &Template{Frame: Frame{X: math.NaN()}, R: 0, Pix: []float32{float32(math.Inf(-1))}}
	b, _ := nan.AppendBinary(nil)
	if got, _, _ := ReadTemplate(b); math.Float64bits(got.Frame.X) != math.Float64bits(nan.Frame.X) || !math.IsInf(float64(got.Pix[0]), -1) {
		t.Errorf("NaN and infinity not kept bit for bit: %v", got)
	}
	if _, err := (&Template{R: 2, Pix: make([]float32, 3)}).AppendBinary(nil); err == nil {
		t.Error("a template with the wrong pixel count was encoded")
	}
}

func TestOutcomeCodes(t *testing.T) {
	for _, e := range []error{nil, ErrBorder, ErrFlat, ErrDiverged, ErrLow, ErrFar} {
		c, err := OutcomeCode(e)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := OutcomeOf(c); !ok || got != e {
			t.Errorf("%v: code %d reads back as %v", e, c, got)
		}
	}
	if _, err := OutcomeCode(errors.New("other")); err == nil {
		t.Error("an unknown error got a code")
	}
	if _, ok := OutcomeOf(6); ok {
		t.Error("code 6 read as an outcome")
	}
}

// FuzzReadTemplate: any bytes give a template or an error, never a panic,
// and a template read re-encodes to the bytes it came from.
func FuzzReadTemplate(f *testing.F) {
	tm := &Template{Frame: Frame{X: 1, Y: 2, Scale: 3}, R: 1, Pix: make([]float32, 9)}
	b, _ := tm.AppendBinary(nil)
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, rest, err := ReadTemplate(b)
		if err != nil {
			return
		}
		enc, err := got.AppendBinary(nil)
		if err != nil || !bytes.Equal(append(enc, rest...), b) {
			t.Errorf("%x read as %v, re-encoded as %x", b, got, enc)
		}
	})
}

// TestFileStore: templates read back from the file as written, outcomes
// as given, and after a failed write the rest stay in memory.
func TestFileStore(t *testing.T) {
	s, err := newFileStore(t.TempDir(), 4)
	if err != nil {
		t.Fatal(err)
	}
	a := &Template{Frame: Frame{X: 1.5, Y: 2, Scale: 3}, R: 1, Pix: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9.5}}
	b := &Template{Frame: Frame{X: 7}, R: 0, Pix: []float32{-1}}
	if err := s.put(0, a, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.put(1, nil, ErrFlat); err != nil {
		t.Fatal(err)
	}
	s.f.Close() // every write from here fails
	if err := s.put(3, b, nil); err != nil || s.mem == nil {
		t.Fatalf("a failed write: %v, memory %v", err, s.mem)
	}
	if got, outcome, err := s.get(1); got != nil || outcome != ErrFlat || err != nil {
		t.Errorf("track 1: %v %v %v", got, outcome, err)
	}
	if got, _, err := s.get(3); err != nil || !reflect.DeepEqual(got, b) {
		t.Errorf("track 3 from memory: %v %v", got, err)
	}
	if _, _, err := s.get(0); err == nil {
		t.Error("a closed file read back")
	}
	s2, _ := newFileStore(t.TempDir(), 1)
	defer s2.close()
	s2.put(0, a, nil)
	if got, _, err := s2.get(0); err != nil || !reflect.DeepEqual(got, a) {
		t.Errorf("track 0 from the file: %v %v", got, err)
	}
}
