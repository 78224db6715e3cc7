package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/internal/pool"
)

// TracksFormatVersion is tracks.json's format_version (schema:
// docs/schema/tracks.schema.json): it grows when a field changes meaning or
// goes; added fields keep it.
const TracksFormatVersion = 1

// WriteTracks writes t as tracks.json, with format_version
// TracksFormatVersion.
func WriteTracks(w io.Writer, t *Tracks) error {
	// Byte for byte json.MarshalIndent(t, "", " ") plus a line break, but
	// one track at a time: a folder of a thousand photos has hundreds of
	// megabytes of tracks, which need not be in memory twice.
	bw := bufio.NewWriterSize(w, 1<<20)
	images, err := json.MarshalIndent(t.Images, " ", " ")
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, "{\n \"format_version\": %d,\n \"images\": ", TracksFormatVersion)
	bw.Write(images)
	bw.WriteString(",\n \"tracks\": ")
	switch {
	case t.Tracks == nil:
		bw.WriteString("null")
	case len(t.Tracks) == 0:
		bw.WriteString("[]")
	default:
		bw.WriteString("[\n")
		enc := newTrackEncoder(t.Images)
		var js []byte
		for k := range t.Tracks {
			js = append(js[:0], "  "...)
			if js, err = enc.appendTrack(js, &t.Tracks[k]); err != nil {
				return err
			}
			if k < len(t.Tracks)-1 {
				js = append(js, ',')
			}
			bw.Write(append(js, '\n'))
		}
		bw.WriteString(" ]")
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// ReadTracks reads tracks.json, checking that every observation names one
// of its images and that no track holds two observations of one image.
func ReadTracks(r io.Reader) (*Tracks, error) {
	var t Tracks
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("tracks.json: %w", err)
	}
	known := map[string]bool{}
	for _, n := range t.Images {
		known[n] = true
	}
	for _, tr := range t.Tracks {
		seen := map[string]bool{}
		for _, o := range tr.Observations {
			if !known[o.Image] {
				return nil, fmt.Errorf("tracks.json: track %d names unknown image %q", tr.ID, o.Image)
			}
			if seen[o.Image] {
				return nil, fmt.Errorf("tracks.json: track %d holds two observations of %q", tr.ID, o.Image)
			}
			seen[o.Image] = true
		}
	}
	return &t, nil
}

// WriteMatchesCSV writes matches.csv: a header, then
// image_a,kp_a,image_b,kp_b per match (RFC 4180 quoting).
func WriteMatchesCSV(w io.Writer, images []string, ms []Match) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"image_a", "kp_a", "image_b", "kp_b"}); err != nil {
		return err
	}
	for _, m := range ms {
		if err := cw.Write([]string{images[m.A], strconv.Itoa(m.KpA), images[m.B], strconv.Itoa(m.KpB)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadMatchesCSV reads matches.csv against the image list, naming the line
// of any error.
func ReadMatchesCSV(r io.Reader, images []string) ([]Match, error) {
	idx := map[string]int{}
	for i, n := range images {
		idx[n] = i
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 4
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("matches.csv: %w", err)
	}
	if strings.Join(head, ",") != "image_a,kp_a,image_b,kp_b" {
		return nil, errors.New("matches.csv: line 1: not the header image_a,kp_a,image_b,kp_b")
	}
	var out []Match
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("matches.csv: %w", err)
		}
		line, _ := cr.FieldPos(0)
		a, okA := idx[rec[0]]
		b, okB := idx[rec[2]]
		ka, e1 := strconv.Atoi(rec[1])
		kb, e2 := strconv.Atoi(rec[3])
		if !okA || !okB || e1 != nil || e2 != nil || ka < 0 || kb < 0 {
			return nil, fmt.Errorf("matches.csv: line %d: %q is not a match between two listed images", line, strings.Join(rec, ","))
		}
		out = append(out, Match{a, ka, b, kb})
	}
}

// WriteJSON writes v as indented JSON with a final newline.
func WriteJSON(w io.Writer, v any) error {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(js, '\n'))
	return err
}

// CheckFileName refuses an image name that cannot serve as one file name
// inside an output folder: empty, "." or "..", or holding a path
// separator, a NUL or a line break. Names from a folder listing are base
// names, so only the line break can reach it from the CLI; a library
// caller's Set.Image can hold anything, and no name may place a file
// outside the output folder.
func CheckFileName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("image name %q is not a file name", name)
	case strings.ContainsAny(name, "/\x00"), filepath.Separator != '/' && strings.ContainsRune(name, filepath.Separator):
		return fmt.Errorf("image name %q holds a path separator or NUL", name)
	case strings.ContainsAny(name, "\n\r"):
		return fmt.Errorf("image name %q holds a line break", name)
	}
	return nil
}

// spacedByte[v] is " v" in decimal: a descriptor value as the features
// files write it, 128 per keypoint.
var spacedByte = func() (t [256]string) {
	for v := range t {
		t[v] = " " + strconv.Itoa(v)
	}
	return t
}()

// featuresText is s in COLMAP's features file format: "N 128", then
// "X Y SCALE ORIENTATION D1..D128" a keypoint (the numbers as fmt's %.4f
// and %.6f print them).
func featuresText(s *features.Set) ([]byte, error) {
	desc, err := s.DescriptorBytes()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, s.Len()*(40+4*features.DescSize)+16)
	b = fmt.Appendf(b, "%d %d\n", s.Len(), features.DescSize)
	for i, k := range s.Keypoints {
		b = strconv.AppendFloat(b, float64(k.X+0.5), 'f', 4, 32)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, float64(k.Y+0.5), 'f', 4, 32)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, float64(k.Size/2), 'f', 4, 32)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, float64(k.Angle)*math.Pi/180, 'f', 6, 64)
		for _, v := range desc[i*features.DescSize : (i+1)*features.DescSize] {
			b = append(b, spacedByte[v]...)
		}
		b = append(b, '\n')
	}
	return b, nil
}

// WriteColmapText writes COLMAP's custom import formats into dir:
// features/IMAGE.txt for `colmap feature_importer --import_path` ("N 128",
// then "X Y SCALE ORIENTATION D1..D128" with descriptors in 0..255 and the
// first pixel's centre at 0.5) and matches.txt for `colmap
// matches_importer --match_type raw` (an "image_a image_b" line, index
// pairs, a blank line between pairs).
//
// They hold what their line formats can express: an image whose name holds
// a space gets its features file but no pairs in matches.txt, and is
// returned in left (database.db, which COLMAP's mapper reads directly,
// holds any name). A name CheckFileName refuses (a line break, a path) is
// an error before anything is written.
func WriteColmapText(dir string, sets []*features.Set, ms []Match) (left []string, err error) {
	spaced := make([]bool, len(sets))
	for i, s := range sets {
		if err := CheckFileName(s.Image); err != nil {
			return nil, err
		}
		if strings.ContainsAny(s.Image, " \t\v\f") {
			spaced[i] = true
			left = append(left, s.Image)
		}
	}
	fdir := filepath.Join(dir, "features")
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		return nil, err
	}
	// One file per image, on every core: each is independent.
	err = pool.ForEach(context.Background(), len(sets), 0, nil, func(i int) error {
		b, err := featuresText(sets[i])
		if err != nil {
			return err
		}
		return WriteFileAtomic(filepath.Join(fdir, sets[i].Image+".txt"), b)
	})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	last := [2]int{-1, -1}
	for _, m := range ms {
		if spaced[m.A] || spaced[m.B] {
			continue
		}
		if cur := [2]int{m.A, m.B}; cur != last {
			if last[0] >= 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s %s\n", sets[m.A].Image, sets[m.B].Image)
			last = cur
		}
		fmt.Fprintf(&b, "%d %d\n", m.KpA, m.KpB)
	}
	return left, WriteFileAtomic(filepath.Join(dir, "matches.txt"), b.Bytes())
}
