package clear

// Components labels each of p's observations with its connected component
// of the association graph: the lowest observation in it. Associations
// inside one view join nothing, as in Solve. It holds one int32 per
// observation (union–find), not Parts' copy of every association.
func (p *Problem) Components() ([]int32, error) {
	vi, err := p.validate()
	if err != nil {
		return nil, err
	}
	parent := make([]int32, vi.numObs())
	for o := range parent {
		parent[o] = int32(o)
	}
	root := func(o int32) int32 {
		for parent[o] != o {
			parent[o] = parent[parent[o]]
			o = parent[o]
		}
		return o
	}
	for _, a := range p.Associations {
		if vi.view(a.A) == vi.view(a.B) {
			continue
		}
		ra, rb := root(int32(a.A)), root(int32(a.B))
		if ra > rb {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
	for o := range parent {
		parent[o] = root(int32(o))
	}
	return parent, nil
}
