package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/clearmatch/clearmatch/internal/atomicfile"
	"github.com/clearmatch/clearmatch/pairwise"
)

// edge is one verified match as CLEAR's association: two observations
// in global numbering (A in the lower image) and the match's ratio, from
// which a weighted solve takes its weight.
type edge struct {
	A, B  int64
	Ratio float32
}

// edgeBytes is an edge's size on disk.
const edgeBytes = 20

// edgeFile names one pair batch's verified matches, kept in the job's
// folder: the components and CLEAR's parts read them, and only the name
// and the images travel through the pipeline.
type edgeFile struct {
	Name string
	// Images are the usable images the edges touch, increasing.
	Images []int
}

func edgePath(dir, name string) string { return filepath.Join(dir, "edges", name) }

// pairEdges returns the verified pairs' matches as edges.
func pairEdges(vs []pairwise.Verified, ims []int, off []int) []edge {
	var es []edge
	for _, v := range vs {
		if v.Model == pairwise.NoModel {
			continue
		}
		oi, oj := int64(off[ims[v.I]]), int64(off[ims[v.J]])
		for _, m := range v.Matches {
			es = append(es, edge{A: oi + int64(m.A), B: oj + int64(m.B), Ratio: m.Ratio})
		}
	}
	return es
}

// encodeEdges packs edges little-endian, edgeBytes each.
func encodeEdges(es []edge) []byte {
	b := make([]byte, len(es)*edgeBytes)
	for k, e := range es {
		r := b[k*edgeBytes:]
		binary.LittleEndian.PutUint64(r, uint64(e.A))
		binary.LittleEndian.PutUint64(r[8:], uint64(e.B))
		binary.LittleEndian.PutUint32(r[16:], math.Float32bits(e.Ratio))
	}
	return b
}

func decodeEdges(b []byte, path string) ([]edge, error) {
	if len(b)%edgeBytes != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of edges", path, len(b))
	}
	es := make([]edge, len(b)/edgeBytes)
	for k := range es {
		r := b[k*edgeBytes:]
		es[k] = edge{A: int64(binary.LittleEndian.Uint64(r)), B: int64(binary.LittleEndian.Uint64(r[8:])), Ratio: math.Float32frombits(binary.LittleEndian.Uint32(r[16:]))}
	}
	return es, nil
}

func writeEdges(dir, name string, es []edge) error {
	if err := atomicfile.Write(edgePath(dir, name), encodeEdges(es)); err != nil {
		return fmt.Errorf("a pair batch's matches: %w", err)
	}
	return nil
}

func readEdges(dir, name string) ([]edge, error) {
	p := edgePath(dir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("a pair batch's matches: %w", err)
	}
	return decodeEdges(b, p)
}

// edgeImages returns the usable images the edges touch, increasing.
func edgeImages(es []edge, p *storedPlan) []int {
	seen := map[int]bool{}
	for _, e := range es {
		i, _ := p.imageOf(int(e.A))
		j, _ := p.imageOf(int(e.B))
		seen[i], seen[j] = true, true
	}
	ims := make([]int, 0, len(seen))
	for i := range seen {
		ims = append(ims, i)
	}
	slices.Sort(ims)
	return ims
}
