// Package numbers parses the numbers of text formats (COLMAP's models,
// Strecha's cameras): finite floats only, each error naming the field.
package numbers

import (
	"fmt"
	"math"
	"strconv"
)

// Floats parses fields as finite numbers.
func Floats(fields []string) ([]float64, error) {
	v := make([]float64, len(fields))
	for i, s := range fields {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%q is not a finite number", s)
		}
		v[i] = x
	}
	return v, nil
}
