package fusion

import (
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// joinedA and joinedB are two robots' landmarks as their maps made alone
// and joined put them (bench-rooms' room of seed 79, 1.2 × detection
// noise): one room seen turned by about π, every landmark of A in B.
var joinedA = []geom.Point{
	{X: 0.40334149170338357, Y: -0.31622526578386256}, {X: -1.9648036455218354, Y: -3.93262473346183},
	{X: -1.3565068017024127, Y: -1.2593777274856035}, {X: -0.6156683328316326, Y: -5.693851870781726},
	{X: -2.4506279200837695, Y: -1.789023885008077}, {X: -2.7521582218073317, Y: -2.926184102103133},
	{X: 2.632232329620339, Y: -1.5936064396246954}, {X: 0.8331164394371302, Y: -1.5185998875030937},
	{X: -4.432159707116404, Y: -4.128317969558768}, {X: -0.3587373487242866, Y: -2.9401369588232904},
	{X: -2.0842852439002257, Y: -5.93595668888022}, {X: 0.8877365627319339, Y: -3.227447000960786},
	{X: 2.0246904529693266, Y: -3.5951875826043684}, {X: 0.9765002536050763, Y: -5.090605522380249},
}

var joinedB = []geom.Point{
	{X: 3.1084230225052325, Y: 2.6120962693140846}, {X: 1.2496245415179037, Y: -3.004482180271897},
	{X: 2.8368140804814885, Y: -2.011611698093241}, {X: 3.9372746401580523, Y: -1.3974303070466385},
	{X: 0.16178768905465962, Y: 1.5841981791013473}, {X: 1.716643781624821, Y: 2.454749619924561},
	{X: -0.6718337003879631, Y: 0.008880129796301003}, {X: 4.107078113666419, Y: -0.15387123561568458},
	{X: 0.6641414949885179, Y: -1.9446323969415678}, {X: 1.3981258206790266, Y: 1.2297344342122345},
	{X: 5.632116673567041, Y: 1.1819487530384316}, {X: 1.8213095970164126, Y: -0.48148947118046737},
	{X: -1.2044208181008471, Y: -1.9220404184899307}, {X: 3.27139888890329, Y: 0.6612697553632437},
	{X: 0.5842738016929607, Y: -0.31908594825091013},
}

// TestAlignByEdgesRunnerUp: a runner-up is another motion, not the best
// one fitted on another edge. Two edges of one alignment, each fitting
// the motion on its two landmarks, can turn it differently enough to
// lay a far landmark two tolerances apart; refitted to their pairings,
// they are one motion, and the join must not refuse the alignment as
// ambiguous (it needs joinUnique times the runner-up's pairings).
func TestAlignByEdgesRunnerUp(t *testing.T) {
	const tol = 0.42070335191122055 // the room's automatic tolerance
	a := newPointIndex(joinedA, make([]float64, len(joinedA)), tol, 0)
	b := newPointIndex(joinedB, make([]float64, len(joinedB)), tol, 0)
	al := alignByEdges(a, b, tol)
	if len(al.matches) != len(joinedA) {
		t.Fatalf("%d pairings, want every landmark of A's %d", len(al.matches), len(joinedA))
	}
	if float64(len(al.matches)) < joinUnique*float64(al.runnerUp) {
		t.Errorf("runner-up %d pairings against %d: the alignment is judged ambiguous", al.runnerUp, len(al.matches))
	}
}
