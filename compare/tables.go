package compare

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// CSV returns the grid cells and the universe estimates as two CSV tables.
func (r *SyntheticReport) CSV() (cells, universe []byte) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"grid", "views", "ratio", "mismatch", "method", "runs", "f1", "score", "f1_completed", "precision", "recall",
		"recovered", "consistent", "distinct", "seconds_mean", "skipped"})
	for _, c := range r.Cells {
		w.Write([]string{strconv.Itoa(c.Grid), strconv.Itoa(c.Views), ff(c.Ratio), ff(c.Mismatch), c.Method, strconv.Itoa(c.Runs),
			ff(c.F1), strconv.Itoa(c.Score), ff(c.F1Completed), ff(c.Precision), ff(c.Recall),
			strconv.Itoa(c.Recovered), strconv.Itoa(c.Consistent), strconv.Itoa(c.Distinct), ff(c.Seconds), c.Skipped})
	}
	w.Flush()
	cells = append([]byte(nil), b.Bytes()...)
	b.Reset()
	w = csv.NewWriter(&b)
	w.Write([]string{"grid", "views", "ratio", "mismatch", "observed_items", "clear", "eigengap"})
	for _, u := range r.Universe {
		w.Write([]string{strconv.Itoa(u.Grid), strconv.Itoa(u.Views), ff(u.Ratio), ff(u.Mismatch), ff(u.Observed), ff(u.CLEAR), ff(u.Eigengap)})
	}
	w.Flush()
	return cells, b.Bytes()
}

// PrintGrids writes each grid as the paper prints it: per method, rows of
// mismatch and columns of views (grid 1) or ratio (grid 2), floor(100·F1),
// with a mark per cell: * truth in every run, c inconsistent, d not
// distinct, b both, - not run.
func (r *SyntheticReport) PrintGrids(w io.Writer) {
	marks := map[Colour]string{Recovered: "*", Valid: " ", Inconsistent: "c", NotDistinct: "d", Both: "b", Skipped: "-"}
	for _, g := range r.Config.Grids {
		cols, colVals, rows, xlabel := r.gridAxes(g)
		fmt.Fprintf(w, "grid %d: F1 (floor of 100·mean over %d runs); columns %s; rows mismatch\n", g, r.Config.Runs, xlabel)
		fmt.Fprintf(w, "%-11s %5s", "method", "")
		for _, c := range cols {
			fmt.Fprintf(w, " %5s", c)
		}
		fmt.Fprintln(w)
		for _, m := range r.Config.Methods {
			for ri, mis := range r.Config.Mismatch {
				name := ""
				if ri == 0 {
					name = m
				}
				fmt.Fprintf(w, "%-11s %5s", name, rows[ri])
				for _, cv := range colVals {
					c, _ := r.Lookup(g, m, cv, mis)
					if c.Colour() == Skipped {
						fmt.Fprintf(w, " %5s", "-")
						continue
					}
					fmt.Fprintf(w, " %4d%s", c.Score, marks[c.Colour()])
				}
				fmt.Fprintln(w)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "marks: * the truth in every run, c not cycle consistent in some run, d not distinct, b both")
}

// CSV returns the real comparison as a table, the input first.
func (r *RealReport) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"method", "precision", "recall", "f1", "completed_precision", "completed_recall", "completed_f1",
		"seconds", "frequency_hz", "consistent", "distinct", "iterations", "skipped"})
	in := r.Input
	w.Write([]string{"input", ff(in.Precision), ff(in.Recall), ff(in.F1), "", "", "", "", "", strconv.FormatBool(in.CycleConsistent), strconv.FormatBool(in.Distinct), "", ""})
	for _, x := range r.Rows {
		w.Write([]string{x.Method, ff(x.Precision), ff(x.Recall), ff(x.F1), ff(x.Completed.Precision), ff(x.Completed.Recall), ff(x.Completed.F1),
			strconv.FormatFloat(x.Seconds, 'f', 6, 64), ff(x.Frequency), strconv.FormatBool(x.Consistent), strconv.FormatBool(x.Distinct),
			strconv.Itoa(x.Iterations), x.Skipped})
	}
	w.Flush()
	return b.Bytes()
}

// Print writes the real comparison as a table.
func (r *RealReport) Print(w io.Writer) {
	fmt.Fprintf(w, "%s, %s input: %d observations, %d views, %d associations; universe %d (CLEAR's estimate, shared)\n\n",
		r.Dataset, r.Protocol, r.Observations, r.Views, r.Associations, r.Universe)
	fmt.Fprintf(w, "%-11s %9s %7s %7s   %-17s %10s %10s %9s\n", "", "precision", "recall", "F1", "completed P / R", "time", "consistent", "distinct")
	fmt.Fprintf(w, "%-11s %9.3f %7.3f %7.3f   %-17s %10s %10v %9v\n", "input", r.Input.Precision, r.Input.Recall, r.Input.F1, "", "", r.Input.CycleConsistent, r.Input.Distinct)
	for _, x := range r.Rows {
		if x.Skipped != "" {
			fmt.Fprintf(w, "%-11s skipped: %s\n", x.Method, x.Skipped)
			continue
		}
		fmt.Fprintf(w, "%-11s %9.3f %7.3f %7.3f   %-17s %10s %10v %9v\n", x.Method, x.Precision, x.Recall, x.F1,
			fmt.Sprintf("%.3f / %.3f", x.Completed.Precision, x.Completed.Recall), seconds(x.Seconds), x.Consistent, x.Distinct)
	}
	fmt.Fprintln(w)
}

func seconds(s float64) string {
	switch {
	case s < 1e-3:
		return fmt.Sprintf("%.0f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.2f s", s)
}
