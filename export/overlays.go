package export

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Overlays describes the overlay pictures of a run.
type Overlays struct {
	Paths []string        // the image files, one per set
	Sets  []*features.Set // the observations of each image
	Item  []int           // CLEAR's item per observation (−1: none)
	// Truth, when not nil, is the true item per observation: lines are
	// then green where the truth agrees and red where not; otherwise in
	// their track's colour.
	Truth []int
	// Input, when not nil, adds a picture of the input matches per pair.
	Input []pairwise.Pair
	// Pairs are the image pairs drawn; nil means each image with the next.
	Pairs [][2]int
	// MaxPixels caps the images read (see imagefile.Decode; 0: default).
	MaxPixels int64
	// Progress, if set, is called after each picture.
	Progress func(done, total int)
}

// Write draws into dir: for each pair, pair_I_J_clear.png (and
// pair_I_J_input.png with Input), and for each image items_NAME.png with
// its observations coloured by item. NAME is the image's name with dots
// and path separators made underscores (so a.png and a.jpg do not collide
// and no name leaves dir).
func (o *Overlays) Write(ctx context.Context, dir string) error {
	chosen := o.Pairs
	if chosen == nil {
		for i := 0; i+1 < len(o.Sets); i++ {
			chosen = append(chosen, [2]int{i, i + 1})
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	off := features.Offsets(o.Sets)
	// Pictures and points are in the frame a viewer shows (the EXIF
	// orientation applied), as tracks.json reports them.
	pts := func(i int) []geom.Point {
		s := o.Sets[i]
		p := make([]geom.Point, s.Len())
		for k := range p {
			p[k].X, p[k].Y = s.DisplayPoint(k)
		}
		return p
	}
	imgs := map[int]image.Image{}
	load := func(i int) (err error) {
		if _, ok := imgs[i]; !ok {
			var m imagefile.Image
			if m, err = imagefile.Open(o.Paths[i], o.MaxPixels); err != nil {
				return err
			}
			imgs[i] = imagefile.Display(m.Image, o.Sets[i].Orientation)
		}
		return nil
	}
	total := len(chosen) + len(o.Sets)
	done := 0
	step := func() {
		done++
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
	byPair := map[[2]int][]pairwise.Match{}
	for _, p := range o.Input {
		byPair[[2]int{p.I, p.J}] = p.Matches
	}
	for _, c := range chosen {
		if err := ctx.Err(); err != nil {
			return err
		}
		i, j := c[0], c[1]
		if err := load(i); err != nil {
			return err
		}
		if err := load(j); err != nil {
			return err
		}
		pi, pj := pts(i), pts(j)
		line := func(a, b int) eval.Line {
			l := eval.Line{A: pi[a-off[i]], B: pj[b-off[j]]}
			if o.Truth != nil {
				l.Good = o.Truth[a] >= 0 && o.Truth[a] == o.Truth[b]
			} else {
				l.Color = eval.ItemColor(o.Item[a])
			}
			return l
		}
		drawn := map[string][]eval.Line{}
		if o.Input != nil {
			drawn["input"] = []eval.Line{}
			for _, m := range byPair[c] {
				drawn["input"] = append(drawn["input"], line(off[i]+int(m.A), off[j]+int(m.B)))
			}
		}
		where := map[int]int{} // item → observation in image j
		for b := off[j]; b < off[j+1]; b++ {
			if o.Item[b] >= 0 {
				where[o.Item[b]] = b
			}
		}
		drawn["clear"] = []eval.Line{}
		for a := off[i]; a < off[i+1]; a++ {
			if b, ok := where[o.Item[a]]; ok && o.Item[a] >= 0 {
				drawn["clear"] = append(drawn["clear"], line(a, b))
			}
		}
		for _, name := range []string{"input", "clear"} {
			if lines, ok := drawn[name]; ok {
				img := eval.PairOverlay(imgs[i], imgs[j], lines)
				if err := writePNG(filepath.Join(dir, fmt.Sprintf("pair_%d_%d_%s.png", i, j, name)), img); err != nil {
					return err
				}
			}
		}
		step()
	}
	for i, s := range o.Sets {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := load(i); err != nil {
			return err
		}
		img := eval.ItemOverlay(imgs[i], pts(i), o.Item[off[i]:off[i+1]])
		name := overlayName.Replace(s.Image)
		if err := writePNG(filepath.Join(dir, "items_"+name+".png"), img); err != nil {
			return err
		}
		delete(imgs, i)
		step()
	}
	return nil
}

// overlayName makes an image name part of one file name inside the
// overlay folder: dots (so a.png and a.jpg differ, and no name is "..")
// and path separators become underscores.
var overlayName = strings.NewReplacer(".", "_", "/", "_", "\\", "_", "\x00", "_")

func writePNG(path string, img image.Image) error {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return WriteFileAtomic(path, b.Bytes())
}
