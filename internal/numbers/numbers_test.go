package numbers

import "testing"

func TestFloats(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		ok   bool
		want float64
	}{
		{[]string{"1", "-2.5e3"}, true, -2500},
		{[]string{"1", "NaN"}, false, 0},
		{[]string{"Inf"}, false, 0},
		{[]string{"x"}, false, 0},
		{nil, true, 0},
	} {
		v, err := Floats(tc.in)
		if (err == nil) != tc.ok || tc.ok && len(v) > 1 && v[1] != tc.want {
			t.Errorf("%q: %v, %v", tc.in, v, err)
		}
	}
}
