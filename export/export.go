// Package export writes clearmatch's output files and reads back those
// meant to be read: tracks.json, matches.csv, report.json, overlay
// pictures, and the COLMAP hand-off (database.db through package colmap,
// with keypoints and two-view geometry converted to COLMAP's pixel
// convention and cameras from the intrinsics, EXIF focal priors or the
// self-calibration; and COLMAP's text import files). It also stages a
// run's outputs so that a failed or interrupted run leaves the output
// folder as it was. It is pure Go.
package export

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
)

// Observation is one keypoint of a track. X and Y are 0-based pixel
// coordinates with pixel centres at integers (OpenCV), at full resolution,
// in the frame a viewer shows the image in: its EXIF orientation applied,
// like the overlays (COLMAP's exports keep the stored pixels' frame).
type Observation struct {
	Image    string  `json:"image"`
	Keypoint int     `json:"keypoint"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
}

// Track is one universe item: an id (numbered by first observation) and
// its observations, at most one per image.
type Track struct {
	ID           int           `json:"id"`
	Observations []Observation `json:"observations"`
}

// Tracks is the content of tracks.json.
type Tracks struct {
	// FormatVersion is TracksFormatVersion when written by WriteTracks.
	FormatVersion int      `json:"format_version"`
	Images        []string `json:"images"`
	Tracks        []Track  `json:"tracks"`
}

// Match is one consistent pairwise match: keypoint KpA of image A with
// keypoint KpB of image B (A before B in the image order).
type Match struct {
	A, KpA, B, KpB int
}

// Build turns CLEAR's items (one per observation, numbered image by image
// as in sets; −1 for dropped observations) into tracks with stable ids and
// the matches they imply, sorted by image pair and keypoints.
func Build(sets []*features.Set, item []int) (*Tracks, []Match) {
	t := &Tracks{FormatVersion: TracksFormatVersion, Images: make([]string, len(sets))}
	off := features.Offsets(sets)
	for i, s := range sets {
		t.Images[i] = s.Image
	}
	if len(item) != off[len(sets)] {
		panic(fmt.Sprintf("export: %d items for %d observations", len(item), off[len(sets)]))
	}
	imgOf := func(g int) (int, int) {
		i := sort.Search(len(sets), func(i int) bool { return off[i+1] > g })
		return i, g - off[i]
	}
	id := map[int]int{}
	for g, it := range item {
		if it < 0 {
			continue
		}
		k, ok := id[it]
		if !ok {
			k = len(t.Tracks)
			id[it] = k
			t.Tracks = append(t.Tracks, Track{ID: k})
		}
		i, kp := imgOf(g)
		x, y := sets[i].DisplayPoint(kp)
		t.Tracks[k].Observations = append(t.Tracks[k].Observations, Observation{Image: sets[i].Image, Keypoint: kp, X: round4(x), Y: round4(y)})
	}
	var ms []Match
	for _, p := range clear.PairsOf(item) {
		ia, ka := imgOf(p.A)
		ib, kb := imgOf(p.B)
		ms = append(ms, Match{ia, ka, ib, kb})
	}
	sort.Slice(ms, func(x, y int) bool {
		a, b := ms[x], ms[y]
		if a.A != b.A || a.B != b.B {
			return a.A < b.A || a.A == b.A && a.B < b.B
		}
		return a.KpA < b.KpA || a.KpA == b.KpA && a.KpB < b.KpB
	})
	return t, ms
}

// round4 rounds to 4 decimals, through float32 as keypoints are stored.
func round4(v float64) float64 { return math.Round(float64(float32(v))*1e4) / 1e4 }

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so a failed or interrupted run never leaves a
// partial file behind. That is for a regular file the user names; other
// paths are written the way a shell redirection writes them:
//   - one of this process's open descriptors (/dev/stdout, /dev/stderr,
//     /dev/fd/N, /proc/self/fd/N, or a link to one of them) is written
//     through that descriptor, wherever the shell pointed it (a file, at its
//     current offset; a pipe; a terminal), never replaced by a new file;
//   - a device, FIFO or socket is opened and written through;
//   - a symbolic link is followed (its target is replaced, the link stays);
//   - a directory, or a link with no reachable target, is refused.
func WriteFileAtomic(path string, data []byte) error {
	// Follow the link chain one hop at a time, so that a descriptor path
	// is recognized before the kernel's magic link would send it to the
	// file behind the descriptor.
	for hops := 0; ; hops++ {
		if fd, ok := ownDescriptor(path); ok {
			return writeFD(path, fd, data)
		}
		fi, err := os.Lstat(path)
		if err != nil {
			if os.IsNotExist(err) && hops > 0 {
				return fmt.Errorf("writing %s: symbolic link with no reachable target", path)
			}
			break // a new file
		}
		switch mode := fi.Mode(); {
		case mode&os.ModeSymlink != 0:
			if hops == 40 {
				return fmt.Errorf("writing %s: too many levels of symbolic links", path)
			}
			target, err := os.Readlink(path)
			if err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			path = target
			continue
		case mode.IsDir():
			return fmt.Errorf("writing %s: is a directory", path)
		case !mode.IsRegular():
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
			return writeAndClose(path, f, data)
		}
		break
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeAndClose writes data to f and closes it; an error names path.
func writeAndClose(path string, f *os.File, data []byte) error {
	_, err := f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ownDescriptor reports whether path names one of this process's open
// file descriptors, and which.
func ownDescriptor(path string) (int, bool) {
	path = filepath.Clean(path)
	switch path {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	dir, name := filepath.Split(path)
	switch filepath.Clean(dir) {
	case "/dev/fd", "/proc/self/fd", "/proc/thread-self/fd", fmt.Sprintf("/proc/%d/fd", os.Getpid()):
	default:
		return 0, false
	}
	fd, err := strconv.Atoi(name)
	if err != nil || fd < 0 || strconv.Itoa(fd) != name {
		return 0, false
	}
	return fd, true
}

// ErrNotEmpty reports an output folder that holds files already.
var ErrNotEmpty = fmt.Errorf("exists and is not empty (use -force)")

// Stage is a temporary folder beside an output folder where a run writes
// its outputs; Publish moves them into place, Discard removes them. A run
// that is killed leaves only the stage, which the next run for the same
// output removes (its process is gone); OUT itself is untouched until
// Publish.
type Stage struct {
	Dir string // write the outputs here
	out string
}

// stagePrefix starts every stage's name; stages of older versions sat
// inside OUT with this name.
const stagePrefix = ".clearmatch-tmp-"

// CheckOut reports whether out can take a run's outputs: missing, or a
// folder that is empty (a stale stage inside it does not count) or force.
// It changes nothing, so a long job can check before its work.
func CheckOut(out string, force bool) error {
	out = filepath.Clean(out)
	switch fi, err := os.Stat(out); {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("output %s exists and is not a directory", out)
	case err != nil && !os.IsNotExist(err):
		return err
	case err == nil:
		entries, err := os.ReadDir(out)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !isStage(e) && !force {
				return fmt.Errorf("output directory %s %w", out, ErrNotEmpty)
			}
		}
	}
	return nil
}

// isStage reports whether e is a stage left inside an output folder by an
// older clearmatch.
func isStage(e os.DirEntry) bool { return e.IsDir() && strings.HasPrefix(e.Name(), stagePrefix) }

// NewStage checks out (CheckOut; stale stages inside it, left by an older
// clearmatch, are removed) and makes a stage beside it, named after it and
// this process. Stale stages of earlier, dead runs for the same output are
// removed. out's parent folder is created if missing; out itself is not.
func NewStage(out string, force bool) (*Stage, error) {
	out = filepath.Clean(out)
	if err := CheckOut(out, force); err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(out); err == nil {
		for _, e := range entries {
			if isStage(e) {
				os.RemoveAll(filepath.Join(out, e.Name()))
			}
		}
	}
	parent, base := filepath.Dir(out), filepath.Base(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	removeStaleStages(parent, base)
	dir, err := os.MkdirTemp(parent, fmt.Sprintf("%s%s-%d-", stagePrefix, base, os.Getpid()))
	if err != nil {
		return nil, err
	}
	return &Stage{Dir: dir, out: out}, nil
}

// removeStaleStages removes the stages for base in parent whose process is
// no longer running.
func removeStaleStages(parent, base string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	prefix := stagePrefix + base + "-"
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, prefix) {
			continue
		}
		rest := strings.SplitN(name[len(prefix):], "-", 2)
		pid, err := strconv.Atoi(rest[0])
		if err != nil || len(rest) != 2 || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(parent, name))
	}
}

// Publish moves the staged outputs into the output folder: the stage
// becomes the folder when there is none (or an empty one); otherwise each
// output replaces an older one of the same name. The stage is removed.
func (s *Stage) Publish() error {
	if err := os.Remove(s.out); err != nil && !os.IsNotExist(err) {
		// out exists and is not empty (-force): move output by output.
		entries, err := os.ReadDir(s.Dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			dst := filepath.Join(s.out, e.Name())
			if err := os.RemoveAll(dst); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(s.Dir, e.Name()), dst); err != nil {
				return err
			}
		}
		return os.Remove(s.Dir)
	}
	if err := os.Chmod(s.Dir, 0o755); err != nil {
		return err
	}
	return os.Rename(s.Dir, s.out)
}

// Discard removes the stage and what it holds (after Publish: nothing).
func (s *Stage) Discard() { os.RemoveAll(s.Dir) }
