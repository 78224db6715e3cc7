package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/clearmatch/clearmatch/internal/atomicfile"
)

// The association graph's connected components are found in the pipeline
// by min-label propagation: every observation starts with its own number
// as label; in each round, every pair batch joins its matches' ends
// (union–find over the batch, so a round crosses a whole batch) and
// lowers each end's label to the least of its piece, and every image
// keeps the least label it is sent. Labels only fall and never below
// their component's first observation, and a round that changes none
// means every match joins equal labels: each component carries its first
// observation. Beam has no loops, so the rounds are a fixed number; a
// round that changes nothing makes the later ones skip their work.
//
// An image's labels after round r are in the job's folder
// (labels/r/IMAGE, one int64 a feature) when round r changed them; an
// image without a file has the labels of its last file, or its own
// numbers.

// labelRounds is how many rounds the pipeline has. If the labels still
// change in the last, the components are not known and the assembly
// solves CLEAR whole, as match does. A round after the labels settle
// costs a barrier and a pass over the group list; docs/benchmarks.md has
// the rounds that measured runs needed.
const labelRounds = 24

// labelGroupImages bounds the images a label group's edge files touch:
// a group is joined by one union–find, so larger groups need fewer
// rounds, and it holds its images' labels.
const labelGroupImages = 64

// edgeGroup is edge files a round joins at once.
type edgeGroup struct {
	Names  []string
	Images []int
	// Quiet is set once the labels have stopped changing.
	Quiet bool
}

// groupEdgeFiles groups edge files, by name, into runs that touch at most
// labelGroupImages images (a run of one file when its images are more).
func groupEdgeFiles(files []edgeFile) []edgeGroup {
	slices.SortFunc(files, func(a, b edgeFile) int { return strings.Compare(a.Name, b.Name) })
	var groups []edgeGroup
	var cur edgeGroup
	flush := func() {
		if len(cur.Names) > 0 {
			slices.Sort(cur.Images)
			cur.Images = slices.Compact(cur.Images)
			groups = append(groups, cur)
		}
		cur = edgeGroup{}
	}
	for _, ef := range files {
		union := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(cur.Images), ef.Images...))))
		if len(cur.Names) > 0 && len(union) > labelGroupImages {
			flush()
			union = ef.Images
		}
		cur.Names = append(cur.Names, ef.Name)
		cur.Images = union
	}
	flush()
	return groups
}

// labelChangesPrefix names the counters of each round's changed labels.
const labelChangesPrefix = "label_changes_round_"

// labelChanges lists, from a job's counters, how many labels each round
// changed.
func labelChanges(counters map[string]int64) string {
	var out []string
	for r := 1; r <= labelRounds; r++ {
		if n, ok := counters[fmt.Sprintf("%s%02d", labelChangesPrefix, r)]; ok {
			out = append(out, strconv.FormatInt(n, 10))
		}
	}
	return strings.Join(out, ", ")
}

// labelUpdate lowers some labels of one image: Feats[k] to Labels[k].
type labelUpdate struct {
	Feats  []int32
	Labels []int64
}

// labelMsg is what a round's gate takes: an edge file, or an image's
// count of changed labels.
type labelMsg struct {
	File    edgeFile
	IsFile  bool
	Changed int
}

type labelStore struct{ dir string }

func (s labelStore) path(round, image int) string {
	return filepath.Join(s.dir, "labels", strconv.Itoa(round), strconv.Itoa(image))
}

// get returns image's labels after round (its own numbers before any).
func (s labelStore) get(round, image int, p *storedPlan) ([]int64, error) {
	for r := round; r >= 1; r-- {
		b, err := os.ReadFile(s.path(r, image))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("labels of image %d: %w", image, err)
		}
		if len(b) != 8*p.Counts[image] {
			return nil, fmt.Errorf("labels of image %d: %d bytes for %d features", image, len(b), p.Counts[image])
		}
		ls := make([]int64, p.Counts[image])
		for k := range ls {
			ls[k] = int64(binary.LittleEndian.Uint64(b[8*k:]))
		}
		return ls, nil
	}
	ls := make([]int64, p.Counts[image])
	first := int64(p.offsets()[image])
	for k := range ls {
		ls[k] = first + int64(k)
	}
	return ls, nil
}

func (s labelStore) put(round, image int, ls []int64) error {
	b := make([]byte, 8*len(ls))
	for k, l := range ls {
		binary.LittleEndian.PutUint64(b[8*k:], uint64(l))
	}
	if err := atomicfile.Write(s.path(round, image), b); err != nil {
		return fmt.Errorf("labels of image %d: %w", image, err)
	}
	return nil
}

// images reads the labels of images after round.
func (s labelStore) images(round int, images []int, p *storedPlan) (map[int][]int64, error) {
	out := make(map[int][]int64, len(images))
	for _, i := range images {
		ls, err := s.get(round, i, p)
		if err != nil {
			return nil, err
		}
		out[i] = ls
	}
	return out, nil
}

// unionFind is a union–find over 0..n-1 that keeps each set's least label.
type unionFind struct {
	parent []int32
	least  []int64
}

func newUnionFind(labels []int64) *unionFind {
	u := &unionFind{parent: make([]int32, len(labels)), least: slices.Clone(labels)}
	for k := range u.parent {
		u.parent[k] = int32(k)
	}
	return u
}

func (u *unionFind) find(x int32) int32 {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *unionFind) union(a, b int32) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	u.least[ra] = min(u.least[ra], u.least[rb])
}

// nodes returns the edges' ends, increasing, and each edge's ends as
// indices into them.
func nodes(es []edge) ([]int64, [][2]int32) {
	obs := make([]int64, 0, 2*len(es))
	for _, e := range es {
		obs = append(obs, e.A, e.B)
	}
	slices.Sort(obs)
	obs = slices.Compact(obs)
	ends := make([][2]int32, len(es))
	for k, e := range es {
		a, _ := slices.BinarySearch(obs, e.A)
		b, _ := slices.BinarySearch(obs, e.B)
		ends[k] = [2]int32{int32(a), int32(b)}
	}
	return obs, ends
}

// readGroupEdges reads the edges of the files names.
func readGroupEdges(dir string, names []string) ([]edge, error) {
	var es []edge
	for _, n := range names {
		part, err := readEdges(dir, n)
		if err != nil {
			return nil, err
		}
		es = append(es, part...)
	}
	return es, nil
}

// labelFn is round Round's work on one group of pair batches: it lowers the labels of
// its matches' ends to the least of their piece of the batch and emits
// the lowered ones by image.
type labelFn struct {
	job
	Round int
}

func (f *labelFn) ProcessElement(ctx context.Context, ef edgeGroup, emit func(int, labelUpdate)) error {
	if ef.Quiet {
		return nil
	}
	if err := f.readPlan(); err != nil {
		return err
	}
	es, err := readGroupEdges(f.Dir, ef.Names)
	if err != nil {
		return err
	}
	labels, err := labelStore{f.Dir}.images(f.Round-1, ef.Images, f.plan)
	if err != nil {
		return err
	}
	obs, ends := nodes(es)
	cur := make([]int64, len(obs))
	for k, o := range obs {
		i, x := f.plan.imageOf(int(o))
		ls, ok := labels[i]
		if !ok {
			return fmt.Errorf("edge files %v: observation %d is in image %d, which the group does not list", ef.Names, o, i)
		}
		cur[k] = ls[x]
	}
	u := newUnionFind(cur)
	for _, e := range ends {
		u.union(e[0], e[1])
	}
	ups := map[int]*labelUpdate{}
	lower := func(o, l int64) {
		i, x := f.plan.imageOf(int(o))
		up := ups[i]
		if up == nil {
			up = &labelUpdate{}
			ups[i] = up
		}
		up.Feats, up.Labels = append(up.Feats, int32(x)), append(up.Labels, l)
	}
	hooked := map[int64]bool{}
	for k, o := range obs {
		if l := u.least[u.find(int32(k))]; l < cur[k] {
			lower(o, l)
			// Hooking: the observation cur[k] names, wherever it is, takes
			// the piece's least label too, and the images labelled by it
			// follow it there by pointer jumping.
			if !hooked[cur[k]] {
				hooked[cur[k]] = true
				lower(cur[k], l)
			}
		}
	}
	recordBundle(ctx, "components", int64(len(es))*edgeBytes+int64(len(obs))*24+labelBytes(labels))
	ims := make([]int, 0, len(ups))
	for i := range ups {
		ims = append(ims, i)
	}
	slices.Sort(ims)
	for _, i := range ims {
		emit(i, *ups[i])
	}
	return nil
}

// labelBytes is the memory of images' labels.
func labelBytes(labels map[int][]int64) int64 {
	var n int64
	for _, ls := range labels {
		n += 8 * int64(len(ls))
	}
	return n
}

// applyFn keeps, for one image, the least label round Round sent each of
// its features, and emits how many changed.
type applyFn struct {
	job
	Round int
}

func (f *applyFn) ProcessElement(ctx context.Context, image int, ups func(*labelUpdate) bool, emit func(int)) error {
	if err := f.readPlan(); err != nil {
		return err
	}
	store := labelStore{f.Dir}
	ls, err := store.get(f.Round-1, image, f.plan)
	if err != nil {
		return err
	}
	changed := 0
	var up labelUpdate
	for ups(&up) {
		for k, x := range up.Feats {
			if int(x) >= len(ls) {
				return fmt.Errorf("labels of image %d: feature %d of %d", image, x, len(ls))
			}
			if l := up.Labels[k]; l < ls[x] {
				ls[x] = l
				changed++
			}
		}
	}
	jumped, err := f.jump(image, ls)
	if err != nil {
		return err
	}
	changed += jumped
	if changed > 0 {
		if err := store.put(f.Round, image, ls); err != nil {
			return err
		}
	}
	emit(changed)
	return nil
}

// jump lowers each label of image to the end of its chain of labels after
// the round before (pointer jumping: label, its label, and on while they
// fall), reading the labelled images' labels; it returns how many fell.
// A label's distance to its component's first observation shrinks much
// faster than by propagation alone, which moves it one group a round.
func (f *applyFn) jump(image int, ls []int64) (int, error) {
	first := int64(f.plan.offsets()[image])
	before := map[int][]int64{}
	labelOf := func(o int64) (int64, error) {
		i, y := f.plan.imageOf(int(o))
		if i == image {
			return ls[y], nil
		}
		theirs, ok := before[i]
		if !ok {
			var err error
			if theirs, err = (labelStore{f.Dir}).get(f.Round-1, i, f.plan); err != nil {
				return 0, err
			}
			before[i] = theirs
		}
		return theirs[y], nil
	}
	changed := 0
	for x, l := range ls {
		if l >= first+int64(x) {
			continue
		}
		to := l
		for {
			next, err := labelOf(to)
			if err != nil {
				return 0, err
			}
			if next >= to {
				break
			}
			to = next
		}
		if to < l {
			ls[x] = to
			changed++
		}
	}
	return changed, nil
}

// labelGateFn starts round Round after every image kept round Round-1's
// labels (it takes them and the edge files under one key): it emits the
// edge files, Quiet when round Round-1 changed no label.
type labelGateFn struct {
	Round int
}

func (f *labelGateFn) ProcessElement(ctx context.Context, _ int, msgs func(*labelMsg) bool, emit func(edgeGroup)) {
	var files []edgeFile
	changed := 0
	var m labelMsg
	for msgs(&m) {
		if m.IsFile {
			files = append(files, m.File)
		}
		changed += m.Changed
	}
	quiet := f.Round > 1 && changed == 0
	if f.Round > 1 && changed > 0 {
		beam.NewCounter("clearmatch", fmt.Sprintf("%s%02d", labelChangesPrefix, f.Round-1)).Inc(ctx, int64(changed))
	}
	switch {
	case quiet:
	case f.Round <= labelRounds:
		labelRoundsRun.Inc(ctx, 1)
	default:
		labelsUnsettled.Inc(ctx, 1)
	}
	for _, g := range groupEdgeFiles(files) {
		g.Quiet = quiet
		emit(g)
	}
}

func fileMsg(ef edgeFile) labelMsg { return labelMsg{File: ef, IsFile: true} }
func changedMsg(n int) labelMsg    { return labelMsg{Changed: n} }
