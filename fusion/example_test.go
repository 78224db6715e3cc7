package fusion_test

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/fusion"
	"github.com/clearmatch/clearmatch/localmap"
)

// A simulated run cut into 3 s local maps, associated pairwise, fused
// with CLEAR and scored against the truth the simulator keeps.
func Example() {
	log, _ := localmap.Simulate(localmap.SimConfig{Seed: 8})
	maps, _ := localmap.FromLog(log, localmap.LogOptions{Motion: localmap.Unicycle{}, Window: 3})
	ctx := context.Background()
	assoc, err := fusion.Associate(ctx, maps, fusion.AssociateOptions{})
	if err != nil {
		panic(err)
	}
	p, _ := fusion.Problem(maps, assoc)
	r, err := fusion.Run(ctx, "clear", p, fusion.Options{})
	if err != nil {
		panic(err)
	}
	sc := fusion.Score(maps, r, fusion.DefaultDNDistance)
	fmt.Printf("%d maps, %d landmarks, %d fused; precision %.3f\n", len(maps.Maps), maps.Landmarks(), len(fusion.Fuse(maps, r)), *sc.Precision)
	// Output: 40 maps, 898 landmarks, 128 fused; precision 0.995
}
