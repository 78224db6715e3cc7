package tracks

import (
	"context"
	"slices"
	"testing"
)

func TestDropShort(t *testing.T) {
	for _, tc := range []struct {
		name      string
		item      []int
		min       int
		want      []int
		stats     MinTrackStats
		wantError bool
	}{
		{"default drops singletons", []int{0, 1, 0, 2, -1}, 0, []int{0, -1, 0, -1, -1}, MinTrackStats{Tracks: 2, Observations: 2}, false},
		{"three", []int{0, 1, 0, 1, 0, -1}, 3, []int{0, -1, 0, -1, 0, -1}, MinTrackStats{Tracks: 1, Observations: 2}, false},
		{"nothing to drop", []int{3, 3, -1}, 2, []int{3, 3, -1}, MinTrackStats{}, false},
		{"one is refused", []int{0}, 1, nil, MinTrackStats{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := MinTrackOptions{Min: tc.min}
			if err := o.Validate(); (err != nil) != tc.wantError {
				t.Fatalf("Validate: %v", err)
			}
			if tc.wantError {
				return
			}
			in := slices.Clone(tc.item)
			got, st, err := DropShort(context.Background(), &Views{}, Tracks{Item: in}, o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Item, tc.want) || st != tc.stats {
				t.Errorf("got %v %+v, want %v %+v", got.Item, st, tc.want, tc.stats)
			}
			if !slices.Equal(in, tc.item) {
				t.Errorf("the input's items changed: %v", in)
			}
		})
	}
}
