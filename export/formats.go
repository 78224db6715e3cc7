package export

import (
	"bufio"
	"bytes"
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
)

// WriteTracks writes t as tracks.json.
func WriteTracks(w io.Writer, t *Tracks) error {
	js, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(js, '\n'))
	return err
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

// CheckColmapName refuses an image name COLMAP's text formats cannot hold
// (a space or a line break), so that a run can fail before its work.
func CheckColmapName(name string) error {
	if strings.ContainsAny(name, "\n\r ") {
		return fmt.Errorf("colmap: image name %q holds a space or line break, which COLMAP's matches.txt cannot express; rename the file", name)
	}
	return nil
}

// WriteColmapText writes COLMAP's custom import formats into dir:
// features/IMAGE.txt for `colmap feature_importer --import_path` ("N 128",
// then "X Y SCALE ORIENTATION D1..D128" with descriptors in 0..255 and the
// first pixel's centre at 0.5) and matches.txt for `colmap
// matches_importer --match_type raw` (an "image_a image_b" line, index
// pairs, a blank line between pairs). COLMAP's line formats cannot hold an
// image name with a line break or a space in matches.txt, so such names
// are refused.
func WriteColmapText(dir string, sets []*features.Set, ms []Match) error {
	for _, s := range sets {
		if err := CheckColmapName(s.Image); err != nil {
			return err
		}
	}
	fdir := filepath.Join(dir, "features")
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		return err
	}
	for _, s := range sets {
		var b bytes.Buffer
		bw := bufio.NewWriter(&b)
		fmt.Fprintf(bw, "%d %d\n", s.Len(), features.DescSize)
		for i, k := range s.Keypoints {
			fmt.Fprintf(bw, "%.4f %.4f %.4f %.6f", k.X+0.5, k.Y+0.5, k.Size/2, float64(k.Angle)*math.Pi/180)
			for _, v := range s.Descriptor(i) {
				bw.WriteByte(' ')
				bw.WriteString(strconv.Itoa(int(min(255, max(0, math.Round(float64(v)))))))
			}
			bw.WriteByte('\n')
		}
		bw.Flush()
		if err := WriteFileAtomic(filepath.Join(fdir, s.Image+".txt"), b.Bytes()); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	last := [2]int{-1, -1}
	for _, m := range ms {
		if cur := [2]int{m.A, m.B}; cur != last {
			if last[0] >= 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s %s\n", sets[m.A].Image, sets[m.B].Image)
			last = cur
		}
		fmt.Fprintf(&b, "%d %d\n", m.KpA, m.KpB)
	}
	return WriteFileAtomic(filepath.Join(dir, "matches.txt"), b.Bytes())
}
