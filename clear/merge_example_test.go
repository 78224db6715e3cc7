package clear_test

import (
	"fmt"

	"github.com/clearmatch/clearmatch/clear"
)

// Item 0 holds the observations of views 0 and 1; view 2's two
// observations are items 1 and 2. One association links item 0 to item
// 1, two link it to item 2: item 2 joins it, and item 1 stays apart, as
// view 2 would otherwise hold two of the joined item's observations.
func ExampleMergeConsistent() {
	p := &clear.Problem{ViewSizes: []int{1, 1, 2}, Associations: []clear.Association{
		{A: 0, B: 1}, {A: 0, B: 2}, {A: 0, B: 3}, {A: 1, B: 3},
	}}
	out, st, err := clear.MergeConsistent(p, []int{0, 0, 1, 2}, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(out, st.Merges, st.Refused)
	// Output: [0 0 1 0] 1 1
}
