package clear

import (
	"errors"
	"slices"
	"testing"
)

func TestComponents(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		as    []Association
		want  []int32
	}{
		{"no associations", []int{2, 1}, nil, []int32{0, 1, 2}},
		{"a chain across three views", []int{2, 2, 2}, []Association{{A: 5, B: 3}, {A: 3, B: 1}}, []int32{0, 1, 2, 1, 4, 1}},
		// 0 and 1 share view 0: their association joins nothing.
		{"inside one view", []int{2, 1}, []Association{{A: 0, B: 1}}, []int32{0, 1, 2}},
		// 2 (view 1) joins them.
		{"joined through another view", []int{2, 1}, []Association{{A: 0, B: 1}, {A: 1, B: 2}, {A: 2, B: 0}}, []int32{0, 0, 0}},
		{"labelled by the lowest observation", []int{1, 1, 1, 1}, []Association{{A: 3, B: 2}, {A: 2, B: 1}}, []int32{0, 1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Problem{ViewSizes: tc.sizes, Associations: tc.as}
			got, err := p.Components()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Components = %v, want %v", got, tc.want)
			}
		})
	}
	var ie *InputError
	if _, err := (&Problem{ViewSizes: []int{1}, Associations: []Association{{A: 0, B: 3}}}).Components(); !errors.As(err, &ie) || ie.Index != 0 {
		t.Errorf("an association past the observations: %v, want an InputError naming it", err)
	}
}
