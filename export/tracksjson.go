package export

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// trackEncoder appends one track as json.MarshalIndent(track, "  ", " ")
// gives it, without reflection or the second indenting pass: tracks.json
// of a thousand photos holds close to a million tracks. Image names are
// quoted once each, by encoding/json itself, so its escaping is kept.
type trackEncoder struct {
	quoted map[string][]byte
}

func newTrackEncoder(images []string) *trackEncoder {
	e := &trackEncoder{quoted: make(map[string][]byte, len(images))}
	for _, n := range images {
		e.quote(n)
	}
	return e
}

// quote is n as a JSON string, as encoding/json writes it.
func (e *trackEncoder) quote(n string) []byte {
	if q, ok := e.quoted[n]; ok {
		return q
	}
	q, _ := json.Marshal(n) // a string always marshals
	e.quoted[n] = q
	return q
}

// appendTrack appends t, indented as the tracks of tracks.json are.
func (e *trackEncoder) appendTrack(b []byte, t *Track) ([]byte, error) {
	b = append(b, "{\n   \"id\": "...)
	b = strconv.AppendInt(b, int64(t.ID), 10)
	b = append(b, ",\n   \"observations\": "...)
	switch {
	case t.Observations == nil:
		return append(b, "null\n  }"...), nil
	case len(t.Observations) == 0:
		return append(b, "[]\n  }"...), nil
	}
	b = append(b, '[')
	for k := range t.Observations {
		o := &t.Observations[k]
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {\n     \"image\": "...)
		b = append(b, e.quote(o.Image)...)
		b = append(b, ",\n     \"keypoint\": "...)
		b = strconv.AppendInt(b, int64(o.Keypoint), 10)
		b = append(b, ",\n     \"x\": "...)
		var err error
		if b, err = appendJSONFloat(b, o.X); err != nil {
			return b, err
		}
		b = append(b, ",\n     \"y\": "...)
		if b, err = appendJSONFloat(b, o.Y); err != nil {
			return b, err
		}
		b = append(b, "\n    }"...)
	}
	return append(b, "\n   ]\n  }"...), nil
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21 on (with a one-digit negative exponent kept short), and an
// error for NaN and the infinities, which JSON cannot hold.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
