package clear_test

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/clear"
)

// The worked example of the paper: two items A and B seen in six views, with
// one wrong association (observation 3 of view 2 to 4 of view 3, 1-based).
func ExampleSolve() {
	p := &clear.Problem{ViewSizes: []int{2, 1, 1, 1, 1, 1}}
	for _, e := range [][2]int{{0, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {2, 3}, {3, 4}, {3, 5}, {3, 6}, {4, 5}, {4, 6}, {5, 6}} {
		p.Associations = append(p.Associations, clear.Association{A: e[0], B: e[1]})
	}
	r, err := clear.Solve(p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("universe size:", r.UniverseSize)
	fmt.Println("items:", r.Item)
	fmt.Println("consistent pairs:", r.Pairs())
	// Output:
	// universe size: 2
	// items: [0 1 0 1 1 1 1]
	// consistent pairs: [{0 2} {1 3} {1 4} {1 5} {1 6} {3 4} {3 5} {3 6} {4 5} {4 6} {5 6}]
}

// Building a problem incrementally, view by view, with a known universe
// size and the optimal assignment.
func ExampleProblem_Associate() {
	var p clear.Problem
	a := p.AddView(3) // observations 0, 1, 2
	b := p.AddView(3) // 3, 4, 5
	c := p.AddView(2) // 6, 7
	matches := [][3]int{{a, b, 0}, {a + 1, b + 1, 0}, {a + 2, b + 2, 0}, {b, c, 0}, {b + 1, c + 1, 0}, {a, c + 1, 0}}
	for _, m := range matches {
		if err := p.Associate(m[0], m[1], 0); err != nil {
			fmt.Println(err)
			return
		}
	}
	r, err := clear.Solve(&p, &clear.Options{UniverseSize: 3, Assignment: clear.Hungarian})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("items:", r.Item)
	fmt.Println("dropped:", r.Dropped)
	// Output:
	// items: [0 1 2 0 1 2 0 1]
	// dropped: 0
}

// The paper's example solved part by part, in the steps a distributed
// solve takes (one part here: every observation is associated), with
// Solve's items.
func ExampleSolveParts() {
	p := &clear.Problem{ViewSizes: []int{2, 1, 1, 1, 1, 1}}
	for _, e := range [][2]int{{0, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {2, 3}, {3, 4}, {3, 5}, {3, 6}, {4, 5}, {4, 6}, {5, 6}} {
		p.Associations = append(p.Associations, clear.Association{A: e[0], B: e[1]})
	}
	parts, _, err := p.Parts()
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := clear.SolveParts(context.Background(), p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("parts:", len(parts))
	fmt.Println("universe size:", r.UniverseSize)
	fmt.Println("items:", r.Item)
	// Output:
	// parts: 1
	// universe size: 2
	// items: [0 1 0 1 1 1 1]
}

// Three views of one point, and a fourth observation that nothing
// associates: two components, each labelled by its lowest observation.
func ExampleProblem_Components() {
	p := &clear.Problem{ViewSizes: []int{1, 1, 1, 1}, Associations: []clear.Association{{A: 0, B: 1}, {A: 2, B: 1}}}
	comp, err := p.Components()
	fmt.Println(comp, err)
	// Output: [0 0 0 3] <nil>
}
