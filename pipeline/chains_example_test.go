package pipeline_test

import (
	"fmt"

	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// Images 0–1 and 1–2 are verified; their matches chain two features of
// image 0 to image 2 through image 1 (feature 2 of image 0 goes to a
// feature of image 1 that image 2 has no match for). Completion would
// propose 0–2 and, with CompletionMinChains 2, match it.
func ExampleChainSupport() {
	vs := []pairwise.Verified{
		{I: 0, J: 1, Model: pairwise.Fundamental, Matches: []pairwise.Match{{A: 2, B: 11}, {A: 5, B: 7}, {A: 6, B: 8}}},
		{I: 1, J: 2, Model: pairwise.Fundamental, Matches: []pairwise.Match{{A: 7, B: 9}, {A: 8, B: 3}, {A: 10, B: 4}}},
	}
	fmt.Println(pipeline.ChainSupport(vs, [][2]int{{0, 2}}))
	// Output: [2]
}

// Pairs 0–1, 1–2, 0–3 and 2–3 are verified: completion's pair 0–2 has
// hubs 1 and 3, and pair 1–3 hubs 0 and 2.
func ExampleChainHubs() {
	verified := [][2]int{{0, 1}, {1, 2}, {0, 3}, {2, 3}}
	fmt.Println(pipeline.ChainHubs(verified, [][2]int{{0, 2}, {1, 3}}))
	// Output: [[1 3] [0 2]]
}
