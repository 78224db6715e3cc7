package clear

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestTextRoundTrip(t *testing.T) {
	for _, p := range []*Problem{
		paperExample(),
		{ViewSizes: []int{2, 0, 3}, Associations: []Association{{A: 0, B: 2, W: 0.25}, {A: 4, B: 1}}},
		Synthesize(SynthConfig{Items: 15, Views: 6, ObsRatio: 0.7, Mismatch: 0.2, Seed: 9}).Problem,
	} {
		var buf bytes.Buffer
		if err := WriteText(&buf, p); err != nil {
			t.Fatal(err)
		}
		q, lines, err := ReadText(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(q.ViewSizes, p.ViewSizes) || len(q.Associations) != len(p.Associations) || len(lines) != len(p.Associations) {
			t.Fatalf("round trip changed the problem: %+v", q)
		}
		for k, as := range p.Associations {
			if b := q.Associations[k]; b.A != as.A || b.B != as.B || b.weight() != as.weight() {
				t.Fatalf("association %d: %+v, want %+v", k, b, as)
			}
		}
	}
}

func TestReadTextErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "line 1: no view sizes line"},
		{"# only a comment\n", "no view sizes line"},
		{"2 x\n", `line 1: view size "x" is not a non-negative integer`},
		{"2 -1\n", `view size "-1"`},
		{"2 2\n0 1 2 3\n", "line 2: want \"a b\" or \"a b w\", got 4 fields"},
		{"2 2\n\n# c\n0 9\n", "line 4: observation index 9 out of range [0, 4)"},
		{"2 2\n0 q\n", `line 2: observation index "q" is not an integer`},
		{"2 2\n0 2 0\n", "line 2: weight 0 is not in (0, 1]"},
		{"2 2\n0 2 1.5\n", "weight 1.5 of (0, 2) is not in (0, 1]"},
		{"2 2\n0 2 NaN\n", "weight NaN"},
		{"2 2\n0 2 w\n", `weight "w" is not a number`},
	} {
		_, _, err := ReadText(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadText(%q): error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestMatrixMarket(t *testing.T) {
	sym := "%%MatrixMarket matrix coordinate pattern symmetric\n% comment\n4 4 3\n3 1\n4 2\n2 2\n"
	p, _, err := ReadMatrixMarket(strings.NewReader(sym), []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Associations) != 2 || p.Directed || p.Associations[0] != (Association{A: 2, B: 0, W: 1}) {
		t.Fatalf("got %+v", p)
	}
	gen := "%%MatrixMarket matrix coordinate real general\n4 4 2\n1 3 0.5\n3 1 0.5\n"
	if p, _, err = ReadMatrixMarket(strings.NewReader(gen), []int{2, 2}); err != nil || !p.Directed {
		t.Fatalf("general: %+v, %v", p, err)
	}
	for _, tc := range []struct {
		in    string
		views []int
		want  string
	}{
		{"%%MatrixMarket matrix array real general\n", []int{1}, "line 1: want header"},
		{"%%MatrixMarket matrix coordinate complex general\n", []int{1}, "unsupported field"},
		{"%%MatrixMarket matrix coordinate real general\n4 4 1\n1 3 0.5\n", []int{1, 2}, "matrix is 4×4 but the views hold 3"},
		{"%%MatrixMarket matrix coordinate real general\n4 4 2\n1 3 0.5\n", []int{2, 2}, "2 entries declared, 1 found"},
		{"%%MatrixMarket matrix coordinate real general\n4 4 1\n1 5 0.5\n", []int{2, 2}, "line 3: entry (1, 5)"},
	} {
		_, _, err := ReadMatrixMarket(strings.NewReader(tc.in), tc.views)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadMatrixMarket(%q): error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzReadText: the parser never panics; whatever it accepts, Solve either
// rejects with an error or solves consistently, and writing it back reads
// the same.
func FuzzReadText(f *testing.F) {
	f.Add("2 1 1 1 1 1\n0 2\n1 3\n2 3\n1 4\n3 4\n")
	f.Add("# c\n3 3\n0 3 0.5\n1 4\n2 5 1\n0 4\n")
	f.Add("1\n")
	f.Add("2 2\n0 2\n0 2\n")
	// Large declared sizes: accepted only when associations back them up.
	f.Add("1000000000000 1\n0 1\n")
	f.Add("9223372036854775807 1\n")
	f.Add("4194304 1\n0 4194304\n")
	f.Add("4194305\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, _, err := ReadText(strings.NewReader(in))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		l := p.NumObservations()
		if l > FreeObservations && l/ObservationsPerAssociation > len(p.Associations) {
			t.Fatalf("accepted %d observations for %d associations", l, len(p.Associations))
		}
		var buf bytes.Buffer
		if err := WriteText(&buf, p); err != nil {
			t.Fatal(err)
		}
		q, _, err := ReadText(&buf)
		if err != nil || len(q.Associations) != len(p.Associations) {
			t.Fatalf("round trip failed: %v", err)
		}
		if l > 200 {
			return // large, sparse: the solve is covered elsewhere
		}
		r, err := Solve(p, nil)
		if err != nil {
			return
		}
		checkConsistent(t, p, r.Item)
	})
}

// FuzzSolve builds small problems from fuzz bytes and checks the invariants
// of every output on every eigensolver path.
func FuzzSolve(f *testing.F) {
	f.Add([]byte{3, 2, 2, 2, 0, 2, 1, 3, 2, 4, 1, 5})
	f.Add([]byte{6, 2, 1, 1, 1, 1, 1, 0, 2, 1, 3, 1, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		nv := int(data[0]%6) + 1
		if len(data) < 1+nv {
			return
		}
		p := &Problem{}
		for v := 0; v < nv; v++ {
			p.AddView(int(data[1+v] % 5))
		}
		l := p.NumObservations()
		rest := data[1+nv:]
		seen := map[[2]int]bool{}
		for i := 0; i+1 < len(rest) && l > 0; i += 2 {
			a, b := int(rest[i])%l, int(rest[i+1])%l
			if seen[[2]int{a, b}] {
				continue
			}
			seen[[2]int{a, b}] = true
			if err := p.Associate(a, b, 0); err != nil {
				t.Fatal(err)
			}
		}
		var ref *Result
		for _, es := range []Eigensolver{EigenDense, EigenIterative} {
			r, err := Solve(p, &Options{Eigensolver: es})
			if err != nil {
				t.Fatal(err)
			}
			checkConsistent(t, p, r.Item)
			if ref == nil {
				ref = r
			} else if r.BelowThreshold != ref.BelowThreshold {
				t.Fatalf("iterative counts %d below the threshold, dense %d", r.BelowThreshold, ref.BelowThreshold)
			}
		}
	})
}

// TestReadRejectsUnbackedSizes: declared sizes that the input cannot back
// up, sums that overflow, overlong lines and extra Matrix Market entries
// are one-line errors naming the line; nothing is allocated for them.
func TestReadRejectsUnbackedSizes(t *testing.T) {
	long := "1 1\n" + strings.Repeat("0 ", maxLine/2+10) + "\n"
	tests := []struct {
		name, in string
		line     int
		want     string
	}{
		{"1e12", "# big\n1000000000000 1\n0 1\n", 2, "add up to more than 2147483647"},
		{"5e6", "5000000 1\n0 1\n", 1, "declare 5000001 observations"},
		{"1e8", "100000000 2\n0 1\n", 1, "more than 1 associations can back up"},
		{"overflow", "9223372036854775807 1\n", 1, "add up to more than 2147483647"},
		{"sum overflow", "2147483647 1\n", 1, "add up to more than"},
		{"no associations", "5000000\n", 1, "declare 5000000"},
		{"overlong line", long, 2, "line longer than 64 MB"},
	}
	for _, tc := range tests {
		_, _, err := ReadText(strings.NewReader(tc.in))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want line %d and %q", tc.name, err, tc.line, tc.want)
		}
	}
	for _, ok := range []string{"4194304\n", "4194303 1\n0 1\n", "300 1\n0 300\n0 299\n"} {
		if _, _, err := ReadText(strings.NewReader(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	mm := []struct {
		name, in string
		sizes    []int
		line     int
		want     string
	}{
		{"extra entry", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n1 2\n2 3\n", []int{1, 1, 1}, 4, "after the 1 entries"},
		{"garbage", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1\n% fine\ntrailing words\n", []int{1, 1}, 5, "trailing words"},
		{"unbacked", "%%MatrixMarket matrix coordinate pattern general\n50000000 50000000 1\n1 2\n", []int{25000000, 25000000}, 2, "declare 50000000"},
	}
	for _, tc := range mm {
		_, _, err := ReadMatrixMarket(strings.NewReader(tc.in), tc.sizes)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want line %d and %q", tc.name, err, tc.line, tc.want)
		}
	}
	if _, err := Solve(&Problem{ViewSizes: []int{1 << 40, 1}}, nil); err == nil || !strings.Contains(err.Error(), "add up to more than") {
		t.Errorf("Solve of 2^40 observations: %v", err)
	}
	if _, err := Solve(&Problem{ViewSizes: []int{FreeObservations, 1}}, nil); err == nil || !strings.Contains(err.Error(), "back up") {
		t.Errorf("Solve of unbacked observations: %v", err)
	}
}
