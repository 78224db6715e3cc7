package fusion

import "slices"

// Settling a tracked map. Once a map whose robot was tracked has been
// associated again in its optimized frame and optimized again, its path
// is close to the true one (a tenth of the landmark spacing on the
// tracked rooms), and its landmarks may be associated again within a
// wider radius, SettleRadius tolerances, and optimized, until the clusters
// do not change (docs/decisions.md, "Settling a tracked map"). On maps
// merged by radius, with false detections, the wider radius pulls those
// into clusters, so settling is for tracked maps only.

// SettleRadius is the radius of settling's associations, in tolerances
// (a quarter of the landmark spacing each): three eighths of the spacing.
const SettleRadius = 1.5

// SettleRounds bounds settling's rounds of association, relocation and
// optimization. Settling also stops where a round comes back to clusters
// an earlier round left: association and relocation can undo each other
// (docs/decisions.md, "Relocating a misplaced map").
const SettleRounds = 20

// WiderTolerance is how many times the automatic tolerance a tracked map
// is also made at; of the two maps, fuse keeps the one of fewer
// landmarks. Where tracking loses a robot's maps, their landmarks come
// out again in clusters of their own; which tolerance loses it differs
// from room to room, and the map that holds the same observations in
// fewer clusters is the one that did not (docs/decisions.md, "Two
// tolerances for a tracked map").
const WiderTolerance = 1.25

// SameClusters reports whether a and b group the observations alike,
// cluster numbers included (Reassociate numbers its clusters in order).
func SameClusters(a, b *Result) bool {
	return a.Clusters == b.Clusters && slices.Equal(a.Cluster, b.Cluster)
}
