package fusion

import "testing"

func TestSameClusters(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b Result
		want bool
	}{
		{"equal", Result{Cluster: []int{0, 1, -1, 0}, Clusters: 2}, Result{Cluster: []int{0, 1, -1, 0}, Clusters: 2}, true},
		{"one observation moved", Result{Cluster: []int{0, 1, -1, 0}, Clusters: 2}, Result{Cluster: []int{0, 1, 1, 0}, Clusters: 2}, false},
		{"numbered apart", Result{Cluster: []int{0, 1}, Clusters: 2}, Result{Cluster: []int{1, 0}, Clusters: 2}, false},
		{"a cluster fewer", Result{Cluster: []int{0, 0}, Clusters: 2}, Result{Cluster: []int{0, 0}, Clusters: 1}, false},
		{"empty", Result{}, Result{}, true},
	} {
		if got := SameClusters(&tc.a, &tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
