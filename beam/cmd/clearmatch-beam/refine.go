package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/clearmatch/clearmatch/internal/atomicfile"
	"github.com/clearmatch/clearmatch/refine"
	"github.com/clearmatch/clearmatch/tracks"
)

// Keypoint refinement on the workers, after the assembly's track
// completion: a second job whose first pass cuts, per image, the templates
// of the tracks whose reference is there (templates/IMAGE), and whose
// second pass aligns, per image, its observations to their templates
// (aligned/IMAGE). The assembly keeps the tracks and writes each image's
// work (refs/IMAGE, obs/IMAGE); a worker holds one image, its frames and
// the templates it aligns to, never the tracks.

func init() {
	for _, fn := range []any{&templateFn{}, &alignGateFn{}, &alignFn{}} {
		beam.RegisterType(reflect.TypeOf(fn).Elem())
	}
}

// refineSetup is what every refinement worker reads once (refine.gob):
// the image files and the alignment's options.
type refineSetup struct {
	Images    []tracks.ImageFile
	MaxPixels int64
	Patch     refine.Options
	// Align lists the images with observations to align, increasing.
	Align []int
}

// refiner runs refinements as Beam jobs in folders under cache.
type refiner struct {
	cache  string
	report io.Writer
}

// refine does refine.Tracks' work on the workers, with its result.
func (r *refiner) refine(ctx context.Context, job tracks.RefineJob) (refine.Stats, error) {
	var st refine.Stats
	if err := job.Patch.Validate(); err != nil {
		return st, err
	}
	n := len(job.Images)
	plan, err := refine.NewPlan(n, job.Tracks)
	if err != nil {
		return st, err
	}
	st.Tracks, st.Observations = plan.Tracks, plan.Observations
	dir := newJobDir(r.cache, "refine-")
	defer os.RemoveAll(dir)
	setup := refineSetup{Images: job.Images, MaxPixels: job.MaxPixels, Patch: job.Patch}
	var refImages []int
	for i := 0; i < n; i++ {
		if len(plan.RefsIn[i]) > 0 {
			refImages = append(refImages, i)
			if err := writeRefs(dir, i, plan.RefsIn[i], plan.RefFrames(i, job.Tracks)); err != nil {
				return st, err
			}
		}
		if len(plan.ObsIn[i]) > 0 {
			setup.Align = append(setup.Align, i)
			if err := writeObs(dir, i, plan, job.Tracks); err != nil {
				return st, err
			}
		}
	}
	if len(refImages) == 0 {
		return st, nil // no track to refine
	}
	if err := writeGob(filepath.Join(dir, "refine.gob"), "refinement's setup", setup); err != nil {
		return st, err
	}
	refineProgress.start(job.Progress, 2*n, 2*n-len(refImages)-len(setup.Align))
	pr, err := beamx.RunWithMetrics(ctx, buildRefine(dir, refImages))
	refineProgress.stop()
	if err != nil {
		return st, rootCause(err)
	}
	for _, i := range setup.Align {
		res, err := readAligned(dir, i, len(plan.ObsIn[i]))
		if err != nil {
			return st, err
		}
		if err := plan.Apply(i, res, job.Tracks, &st); err != nil {
			return st, err
		}
	}
	if pr != nil && r.report != nil {
		fmt.Fprintf(r.report, "beam: refinement of %d tracks on the workers: %s\n", plan.Tracks, stateSummary(pr.Metrics()))
	}
	return st, nil
}

// buildRefine makes the refinement job: templates per reference image,
// then (after every template, a GroupByKey) the alignments per image.
func buildRefine(dir string, refImages []int) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	cut := beam.ParDo(s.Scope("templates"), &templateFn{Dir: dir}, beam.Reshuffle(s, beam.CreateList(s, refImages)))
	toAlign := beam.ParDo(s.Scope("align"), &alignGateFn{Dir: dir}, beam.GroupByKey(s, beam.AddFixedKey(s, cut)))
	drain(s, beam.ParDo(s.Scope("align"), &alignFn{Dir: dir}, beam.Reshuffle(s, toAlign)))
	return p
}

// setupCache holds each job folder's refine.gob, read once per process.
var setupCache sync.Map // dir → *setupOnce

type setupOnce struct {
	once sync.Once
	s    refineSetup
	err  error
}

func readSetup(dir string) (*refineSetup, error) {
	v, _ := setupCache.LoadOrStore(dir, &setupOnce{})
	so := v.(*setupOnce)
	so.once.Do(func() { so.err = readGob(filepath.Join(dir, "refine.gob"), "refinement's setup", &so.s) })
	return &so.s, so.err
}

// imageWork is one image's share of a pass: the job's setup, the frames
// of refs/IMAGE or obs/IMAGE ("refs" or "obs") and the image.
type imageWork struct {
	setup  *refineSetup
	ids    []trackRef
	frames []refine.Frame
	im     *refine.Image
}

// startImage waits for a core, then reads image i's share of the pass
// kind; release gives the core back.
func startImage(ctx context.Context, dir, kind string, i int) (w imageWork, release func(), err error) {
	if w.setup, err = readSetup(dir); err != nil {
		return w, nil, err
	}
	if release, err = holdCore(ctx); err != nil {
		return w, nil, err
	}
	if w.ids, w.frames, err = readFrames(refPath(dir, kind, i), kind == "obs"); err == nil {
		w.im, err = tracks.LoadGray(w.setup.Images[i], w.setup.MaxPixels, nil)
	}
	if err != nil {
		release()
		return w, nil, err
	}
	return w, release, nil
}

// templateFn cuts the templates of the tracks whose reference is in an
// image and writes them, indexed by track, to templates/IMAGE.
type templateFn struct{ Dir string }

func (f *templateFn) ProcessElement(ctx context.Context, i int, emit func(int)) error {
	w, release, err := startImage(ctx, f.Dir, "refs", i)
	if err != nil {
		return err
	}
	defer release()
	s, ids, frames, im := w.setup, w.ids, w.frames, w.im
	tmpl, errs := refine.Templates(im, frames, s.Patch)
	b, err := encodeTemplates(ids, tmpl, errs)
	if err != nil {
		return err
	}
	recordBundle(ctx, "templates", imageBytes(im)+int64(len(b))+int64(len(frames))*(8+32))
	if err := atomicfile.Write(refPath(f.Dir, "templates", i), b); err != nil {
		return fmt.Errorf("templates of image %d: %w", i, err)
	}
	refineProgress.step()
	emit(i)
	return nil
}

// alignGateFn starts the alignments once every template is written.
type alignGateFn struct{ Dir string }

func (f *alignGateFn) ProcessElement(_ int, _ func(*int) bool, emit func(int)) error {
	s, err := readSetup(f.Dir)
	if err != nil {
		return err
	}
	for _, i := range s.Align {
		emit(i)
	}
	return nil
}

// alignFn aligns an image's observations to their tracks' templates and
// writes the outcomes to aligned/IMAGE, in the order of obs/IMAGE.
type alignFn struct{ Dir string }

func (f *alignFn) ProcessElement(ctx context.Context, i int, emit func(int)) error {
	w, release, err := startImage(ctx, f.Dir, "obs", i)
	if err != nil {
		return err
	}
	defer release()
	s, ids, frames, im := w.setup, w.ids, w.frames, w.im
	tmpl, held, err := fetchTemplates(f.Dir, ids)
	if err != nil {
		return err
	}
	res, err := refine.Align(ctx, im, frames, func(k int) (*refine.Template, error) { return tmpl[k].t, tmpl[k].err }, s.Patch, 1)
	if err != nil {
		return err
	}
	b := make([]byte, 0, len(res)*alignedBytes)
	for _, r := range res {
		c, err := refine.OutcomeCode(r.Err)
		if err != nil {
			return err
		}
		b = append(b, c)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.X))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Y))
	}
	recordBundle(ctx, "align", imageBytes(im)+held+int64(len(frames))*(16+32)+int64(len(b)))
	if err := atomicfile.Write(refPath(f.Dir, "aligned", i), b); err != nil {
		return fmt.Errorf("alignments in image %d: %w", i, err)
	}
	refineProgress.step()
	emit(i)
	return nil
}

// alignedBytes is one outcome's size in aligned/IMAGE: its code, X, Y.
const alignedBytes = 17

func refPath(dir, kind string, i int) string { return filepath.Join(dir, kind, strconv.Itoa(i)) }

func imageBytes(im *refine.Image) int64 { return int64(len(im.Pix)+len(im.Gx)+len(im.Gy)) * 4 }

// A frame record: the track (and, for an observation, its reference's
// image) then the frame's four float64s.
const (
	refRecord = 8 + 32
	obsRecord = 8 + 8 + 32
)

// trackRef names a template: its track and the image it was cut from.
type trackRef struct{ Track, Image int64 }

func writeRefs(dir string, i int, refs []int, frames []refine.Frame) error {
	b := make([]byte, 0, len(refs)*refRecord)
	for k, ti := range refs {
		b = binary.LittleEndian.AppendUint64(b, uint64(ti))
		b = appendFrame(b, frames[k])
	}
	return atomicfile.Write(refPath(dir, "refs", i), b)
}

func writeObs(dir string, i int, plan *refine.Plan, trks [][]refine.Observation) error {
	frames := plan.ObsFrames(i, trks)
	b := make([]byte, 0, len(frames)*obsRecord)
	for k, o := range plan.ObsIn[i] {
		ti := o[0]
		b = binary.LittleEndian.AppendUint64(b, uint64(ti))
		b = binary.LittleEndian.AppendUint64(b, uint64(trks[ti][plan.Ref[ti]].Image))
		b = appendFrame(b, frames[k])
	}
	return atomicfile.Write(refPath(dir, "obs", i), b)
}

func appendFrame(b []byte, f refine.Frame) []byte {
	for _, v := range []float64{f.X, f.Y, f.Scale, f.Angle} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// readFrames reads refs/IMAGE (withImage false) or obs/IMAGE.
func readFrames(path string, withImage bool) ([]trackRef, []refine.Frame, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	size := refRecord
	if withImage {
		size = obsRecord
	}
	if len(b)%size != 0 {
		return nil, nil, fmt.Errorf("%s: %d bytes is not a whole number of records", path, len(b))
	}
	ids, frames := make([]trackRef, len(b)/size), make([]refine.Frame, len(b)/size)
	for k := range ids {
		r := b[k*size:]
		ids[k].Track = int64(binary.LittleEndian.Uint64(r))
		r = r[8:]
		if withImage {
			ids[k].Image = int64(binary.LittleEndian.Uint64(r))
			r = r[8:]
		}
		var v [4]float64
		for a := range v {
			v[a] = math.Float64frombits(binary.LittleEndian.Uint64(r[8*a:]))
		}
		frames[k] = refine.Frame{X: v[0], Y: v[1], Scale: v[2], Angle: v[3]}
	}
	return ids, frames, nil
}

// encodeTemplates writes a template file: the count, then per template
// (in ids' order, increasing by track) its track and its entry's end
// offset, then the entries, each an outcome code and, for 0, the
// template (refine.Template.AppendBinary).
func encodeTemplates(ids []trackRef, tmpl []*refine.Template, errs []error) ([]byte, error) {
	head := 8 + 16*len(ids)
	b := make([]byte, head)
	binary.LittleEndian.PutUint64(b, uint64(len(ids)))
	for k := range ids {
		c, err := refine.OutcomeCode(errs[k])
		if err != nil {
			return nil, err
		}
		b = append(b, c)
		if c == 0 {
			if b, err = tmpl[k].AppendBinary(b); err != nil {
				return nil, err
			}
		}
		binary.LittleEndian.PutUint64(b[8+16*k:], uint64(ids[k].Track))
		binary.LittleEndian.PutUint64(b[16+16*k:], uint64(len(b)))
	}
	return b, nil
}

// fetched is one observation's template, or why its track has none.
type fetched struct {
	t   *refine.Template
	err error
}

// fetchTemplates reads the template of each observation's track from its
// reference image's file (its index, then each entry it needs) and
// returns them with the bytes they hold.
func fetchTemplates(dir string, ids []trackRef) ([]fetched, int64, error) {
	out := make([]fetched, len(ids))
	byImage := map[int64][]int{}
	for k, id := range ids {
		byImage[id.Image] = append(byImage[id.Image], k)
	}
	images := make([]int64, 0, len(byImage))
	for im := range byImage {
		images = append(images, im)
	}
	sort.Slice(images, func(a, b int) bool { return images[a] < images[b] })
	var held int64
	for _, im := range images {
		n, err := fetchFrom(refPath(dir, "templates", int(im)), ids, byImage[im], out)
		if err != nil {
			return nil, 0, err
		}
		held += n
	}
	return out, held, nil
}

// fetchFrom fills out[k] for each k of want from one template file.
func fetchFrom(path string, ids []trackRef, want []int, out []fetched) (int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	var cnt [8]byte
	if _, err := fh.ReadAt(cnt[:], 0); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	n := binary.LittleEndian.Uint64(cnt[:])
	if n > 1<<40 {
		return 0, fmt.Errorf("%s: %d templates", path, n)
	}
	index := make([]byte, 16*n)
	if _, err := fh.ReadAt(index, 8); err != nil {
		return 0, fmt.Errorf("%s: index: %w", path, err)
	}
	track := func(e int) int64 { return int64(binary.LittleEndian.Uint64(index[16*e:])) }
	end := func(e int) int64 { return int64(binary.LittleEndian.Uint64(index[16*e+8:])) }
	held := int64(len(index))
	var buf []byte
	for _, k := range want {
		e := sort.Search(int(n), func(e int) bool { return track(e) >= ids[k].Track })
		if e == int(n) || track(e) != ids[k].Track {
			return 0, fmt.Errorf("%s: no template for track %d", path, ids[k].Track)
		}
		start := int64(8 + 16*n)
		if e > 0 {
			start = end(e - 1)
		}
		size := end(e) - start
		if size < 1 || size > 1<<24 {
			return 0, fmt.Errorf("%s: track %d: entry of %d bytes", path, ids[k].Track, size)
		}
		buf = slices.Grow(buf[:0], int(size))[:size]
		if _, err := fh.ReadAt(buf, start); err != nil {
			return 0, fmt.Errorf("%s: track %d: %w", path, ids[k].Track, err)
		}
		outcome, ok := refine.OutcomeOf(buf[0])
		if !ok {
			return 0, fmt.Errorf("%s: track %d: outcome code %d", path, ids[k].Track, buf[0])
		}
		out[k].err = outcome
		if outcome == nil {
			t, rest, err := refine.ReadTemplate(buf[1:])
			if err != nil || len(rest) != 0 {
				return 0, fmt.Errorf("%s: track %d: a bad template (%v, %d bytes left)", path, ids[k].Track, err, len(rest))
			}
			out[k].t = t
			held += int64(len(t.Pix)) * 4
		}
	}
	return held, nil
}

// readAligned reads aligned/IMAGE: want outcomes.
func readAligned(dir string, i, want int) ([]refine.Aligned, error) {
	path := refPath(dir, "aligned", i)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) != want*alignedBytes {
		return nil, fmt.Errorf("%s: %d bytes, want %d outcomes", path, len(b), want)
	}
	res := make([]refine.Aligned, want)
	for k := range res {
		r := b[k*alignedBytes:]
		outcome, ok := refine.OutcomeOf(r[0])
		if !ok {
			return nil, fmt.Errorf("%s: outcome code %d", path, r[0])
		}
		res[k] = refine.Aligned{Err: outcome,
			X: math.Float64frombits(binary.LittleEndian.Uint64(r[1:])),
			Y: math.Float64frombits(binary.LittleEndian.Uint64(r[9:]))}
	}
	return res, nil
}

// refineProgress reports the refinement's images done to the assembly's
// progress line, from workers in this process (Prism's loopback).
var refineProgress = &stepProgress{}

type stepProgress struct {
	mu          sync.Mutex
	report      func(done, total int)
	done, total int
}

func (p *stepProgress) start(report func(done, total int), total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.report, p.total, p.done = report, total, done
}

func (p *stepProgress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.report != nil {
		p.report(p.done, p.total)
	}
}

func (p *stepProgress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.report != nil && p.done < p.total {
		p.report(p.total, p.total)
	}
	p.report = nil
}
