package clear

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The text format of `clearmatch solve`:
//
//	# comment lines start with '#'; blank lines are ignored
//	2 1 1 1 1 1        ← observations in each view
//	0 2                ← an association: 0-based global indices
//	1 3 0.75           ← with an optional weight in (0, 1]
//
// Observations are numbered view by view in the order of the first line.
// Each association line names an unordered pair.

// ParseError reports malformed input with its 1-based line number.
type ParseError struct {
	Line int
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *ParseError) Unwrap() error { return e.Err }

// maxLine bounds one input line (the view sizes line can be long).
const maxLine = 64 << 20

// ReadText parses the text format. lines[k] is the line of association k,
// so that errors found later (a duplicate association) can name the line.
func ReadText(r io.Reader) (p *Problem, lines []int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	p = &Problem{}
	haveViews, viewLine := false, 0
	l := 0
	ln := 1
	for ; sc.Scan(); ln++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		f := strings.Fields(text)
		if !haveViews {
			for _, s := range f {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 {
					return nil, nil, &ParseError{ln, fmt.Errorf("view size %q is not a non-negative integer", s)}
				}
				if n > MaxObservations-l {
					return nil, nil, &ParseError{ln, fmt.Errorf("view sizes add up to more than %d observations", MaxObservations)}
				}
				p.ViewSizes = append(p.ViewSizes, n)
				l += n
			}
			haveViews, viewLine = true, ln
			continue
		}
		if len(f) != 2 && len(f) != 3 {
			return nil, nil, &ParseError{ln, fmt.Errorf("want \"a b\" or \"a b w\", got %d fields", len(f))}
		}
		var as Association
		for i, dst := range []*int{&as.A, &as.B} {
			n, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, nil, &ParseError{ln, fmt.Errorf("observation index %q is not an integer", f[i])}
			}
			*dst = n
		}
		as.W = 1
		if len(f) == 3 {
			w, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return nil, nil, &ParseError{ln, fmt.Errorf("weight %q is not a number", f[2])}
			}
			if !(w > 0) {
				return nil, nil, &ParseError{ln, fmt.Errorf("weight %v is not in (0, 1]", w)}
			}
			as.W = w
		}
		if lines, err = appendChecked(p, lines, as, l, ln); err != nil {
			return nil, nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, scanError(ln, err)
	}
	if !haveViews {
		return nil, nil, &ParseError{1, fmt.Errorf("no view sizes line")}
	}
	if err := checkSize(l, len(p.Associations)); err != nil {
		return nil, nil, &ParseError{viewLine, err}
	}
	return p, lines, nil
}

// scanError names the line a scanner stopped at.
func scanError(ln int, err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return &ParseError{ln, fmt.Errorf("line longer than %d MB", maxLine>>20)}
	}
	return &ParseError{ln, err}
}

// appendChecked validates an association read on line ln against l
// observations and appends it to p, and its line to lines.
func appendChecked(p *Problem, lines []int, as Association, l, ln int) ([]int, error) {
	if err := checkAssociation(as, l); err != nil {
		return lines, &ParseError{ln, err}
	}
	p.Associations = append(p.Associations, as)
	return append(lines, ln), nil
}

// WriteText writes p in the text format. Weights of 1 are omitted.
func WriteText(w io.Writer, p *Problem) error {
	bw := bufio.NewWriter(w)
	for i, n := range p.ViewSizes {
		if i > 0 {
			bw.WriteByte(' ')
		}
		bw.WriteString(strconv.Itoa(n))
	}
	bw.WriteByte('\n')
	for _, as := range p.Associations {
		bw.WriteString(strconv.Itoa(as.A))
		bw.WriteByte(' ')
		bw.WriteString(strconv.Itoa(as.B))
		if wt := as.weight(); wt != 1 {
			bw.WriteByte(' ')
			bw.WriteString(strconv.FormatFloat(wt, 'g', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadMatrixMarket parses a Matrix Market coordinate file holding the
// aggregate association matrix (l × l), with the view sizes given apart.
// Entries are 1-based; diagonal and zero entries are ignored; "pattern"
// entries have weight 1. A "symmetric" file lists each pair once; a
// "general" file is the matrix P̃ itself (Problem.Directed).
func ReadMatrixMarket(r io.Reader, viewSizes []int) (p *Problem, lines []int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	ln := 0
	next := func() (string, bool) {
		for sc.Scan() {
			ln++
			t := strings.TrimSpace(sc.Text())
			if t != "" && t[0] != '%' {
				return t, true
			}
		}
		return "", false
	}
	if !sc.Scan() {
		return nil, nil, &ParseError{1, fmt.Errorf("empty input, want a %%%%MatrixMarket header")}
	}
	ln = 1
	hdr := strings.Fields(strings.ToLower(sc.Text()))
	if len(hdr) != 5 || hdr[0] != "%%matrixmarket" || hdr[1] != "matrix" || hdr[2] != "coordinate" {
		return nil, nil, &ParseError{1, fmt.Errorf("want header \"%%%%MatrixMarket matrix coordinate FIELD SYMMETRY\"")}
	}
	field, sym := hdr[3], hdr[4]
	if field != "real" && field != "integer" && field != "pattern" {
		return nil, nil, &ParseError{1, fmt.Errorf("unsupported field %q (want real, integer or pattern)", field)}
	}
	if sym != "general" && sym != "symmetric" {
		return nil, nil, &ParseError{1, fmt.Errorf("unsupported symmetry %q (want general or symmetric)", sym)}
	}
	p = &Problem{ViewSizes: append([]int(nil), viewSizes...), Directed: sym == "general"}
	l := 0
	for v, n := range viewSizes {
		if n < 0 {
			return nil, nil, fmt.Errorf("view %d has negative size %d", v, n)
		}
		if n > MaxObservations-l {
			return nil, nil, fmt.Errorf("view sizes add up to more than %d observations", MaxObservations)
		}
		l += n
	}
	size, ok := next()
	if !ok {
		return nil, nil, &ParseError{ln, fmt.Errorf("missing size line")}
	}
	var rows, cols, nnz int
	if f := strings.Fields(size); len(f) != 3 {
		return nil, nil, &ParseError{ln, fmt.Errorf("want size line \"rows cols entries\"")}
	} else if rows, err = strconv.Atoi(f[0]); err == nil {
		if cols, err = strconv.Atoi(f[1]); err == nil {
			nnz, err = strconv.Atoi(f[2])
		}
	}
	if err != nil || rows < 0 || nnz < 0 {
		return nil, nil, &ParseError{ln, fmt.Errorf("bad size line %q", size)}
	}
	sizeLine := ln
	if rows != cols || rows != l {
		return nil, nil, &ParseError{ln, fmt.Errorf("matrix is %d×%d but the views hold %d observations", rows, cols, l)}
	}
	for k := 0; k < nnz; k++ {
		t, ok := next()
		if !ok {
			return nil, nil, &ParseError{ln, fmt.Errorf("%d entries declared, %d found", nnz, k)}
		}
		f := strings.Fields(t)
		want := 3
		if field == "pattern" {
			want = 2
		}
		if len(f) != want {
			return nil, nil, &ParseError{ln, fmt.Errorf("want %d fields, got %d", want, len(f))}
		}
		i, err1 := strconv.Atoi(f[0])
		j, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || i < 1 || i > l || j < 1 || j > l {
			return nil, nil, &ParseError{ln, fmt.Errorf("entry (%s, %s) is not a pair of indices in [1, %d]", f[0], f[1], l)}
		}
		w := 1.0
		if field != "pattern" {
			if w, err = strconv.ParseFloat(f[2], 64); err != nil {
				return nil, nil, &ParseError{ln, fmt.Errorf("value %q is not a number", f[2])}
			}
			if w == 0 {
				continue
			}
		}
		if i == j {
			continue
		}
		if lines, err = appendChecked(p, lines, Association{A: i - 1, B: j - 1, W: w}, l, ln); err != nil {
			return nil, nil, err
		}
	}
	if t, ok := next(); ok {
		return nil, nil, &ParseError{ln, fmt.Errorf("%q after the %d entries the size line declares", truncate(t, 40), nnz)}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, scanError(ln+1, err)
	}
	if err := checkSize(l, len(p.Associations)); err != nil {
		return nil, nil, &ParseError{sizeLine, err}
	}
	return p, lines, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// WritePairsText writes consistent pairs in the text format: the view sizes
// line, then "a b" per pair.
func WritePairsText(w io.Writer, viewSizes []int, pairs []Pair) error {
	p := &Problem{ViewSizes: viewSizes, Associations: make([]Association, len(pairs))}
	for k, pr := range pairs {
		p.Associations[k] = Association{A: pr.A, B: pr.B}
	}
	return WriteText(w, p)
}

// WritePairsMatrixMarket writes consistent pairs as a symmetric pattern
// Matrix Market file (lower triangle, 1-based).
func WritePairsMatrixMarket(w io.Writer, l int, pairs []Pair) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate pattern symmetric\n%d %d %d\n", l, l, len(pairs))
	for _, pr := range pairs {
		fmt.Fprintf(bw, "%d %d\n", pr.B+1, pr.A+1)
	}
	return bw.Flush()
}
