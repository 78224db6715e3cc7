package refine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// outcomes are the errors an alignment or a template ends with, by code
// (0 is nil), so that outcomes can be stored and read back as themselves.
var outcomes = []error{nil, ErrBorder, ErrFlat, ErrDiverged, ErrLow, ErrFar}

// OutcomeCode is err's code for storage: 0 for nil, else one of the Err
// variables' (an error that is none of them is refused).
func OutcomeCode(err error) (byte, error) {
	for c, e := range outcomes {
		if err == e {
			return byte(c), nil
		}
	}
	return 0, fmt.Errorf("refine: %v is not an alignment's outcome", err)
}

// OutcomeOf is the outcome whose code c is; ok is false for a code
// OutcomeCode never gives.
func OutcomeOf(c byte) (outcome error, ok bool) {
	if int(c) >= len(outcomes) {
		return nil, false
	}
	return outcomes[c], true
}

// AppendBinary appends t's exact encoding (little endian: the frame's four
// float64s, R as uint16, the (2R+1)² float32 pixels) to b.
func (t *Template) AppendBinary(b []byte) ([]byte, error) {
	n := 2*t.R + 1
	if t.R < 0 || t.R > math.MaxUint16/2 || len(t.Pix) != n*n {
		return b, fmt.Errorf("refine: template of half-width %d with %d pixels", t.R, len(t.Pix))
	}
	for _, v := range []float64{t.Frame.X, t.Frame.Y, t.Frame.Scale, t.Frame.Angle} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(t.R))
	for _, v := range t.Pix {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b, nil
}

// errShortTemplate reports a template encoding cut short.
var errShortTemplate = errors.New("refine: template encoding cut short")

// ReadTemplate decodes a template AppendBinary wrote at the start of b and
// returns the bytes after it.
func ReadTemplate(b []byte) (*Template, []byte, error) {
	if len(b) < 4*8+2 {
		return nil, nil, errShortTemplate
	}
	var f [4]float64
	for k := range f {
		f[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:]))
	}
	r := int(binary.LittleEndian.Uint16(b[32:]))
	b = b[34:]
	n := (2*r + 1) * (2*r + 1)
	if len(b) < 4*n {
		return nil, nil, errShortTemplate
	}
	t := &Template{Frame: Frame{X: f[0], Y: f[1], Scale: f[2], Angle: f[3]}, R: r, Pix: make([]float32, n)}
	for k := range t.Pix {
		t.Pix[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
	}
	return t, b[4*n:], nil
}
