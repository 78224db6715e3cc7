package cmdline

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// FlagSet is a command's flags with its help: the common flags first, the
// tuning flags only on `-h all`. Parse errors come back as one line with a
// "did you mean" for a mistyped flag; nothing is printed while parsing.
type FlagSet struct {
	*flag.FlagSet
	name, usage string
	out         io.Writer // where -h prints
	// common names the flags `-h` shows; nil shows every flag.
	Common []string
	// groups, when set, order `-h all` by the options' groups.
	groups []flagGroup
}

// flagGroup is a titled group of flags, as `-h all` prints them.
type flagGroup struct {
	title string
	names []string
}

// group registers the flags add defines as one group titled title.
func (fs *FlagSet) Group(title string, add func(*flag.FlagSet)) {
	before := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { before[f.Name] = true })
	add(fs.FlagSet)
	g := flagGroup{title: title}
	fs.VisitAll(func(f *flag.Flag) {
		if !before[f.Name] {
			g.names = append(g.names, f.Name)
		}
	})
	fs.groups = append(fs.groups, g)
}

// NewFlags returns a flag set whose help names the command and goes to out.
func NewFlags(name, usage string, out io.Writer) *FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &FlagSet{FlagSet: fs, name: name, usage: usage, out: out}
}

// parse parses args; flag errors become one-line usage errors and -h
// prints the help (with every flag when "all" follows it).
func (fs *FlagSet) ParseArgs(args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.printHelp(helpAll(args))
		return err
	}
	return UsageError{Err: fs.explain(err)}
}

// ParseFlags parses args that take no positional arguments.
func ParseFlags(fs *FlagSet, args []string) error {
	if err := fs.ParseArgs(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q (clearmatch %s -h lists the flags)", fs.Arg(0), fs.name)
	}
	return nil
}

// ParseInterleaved parses flags that may follow positional arguments
// (clearmatch match DIR -out OUT) and returns the positional ones.
func ParseInterleaved(fs *FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.ParseArgs(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// helpAll reports whether -h is followed by "all" in args.
func helpAll(args []string) bool {
	for i, a := range args[:max(len(args)-1, 0)] {
		switch strings.TrimLeft(a, "-") {
		case "h", "help":
			if strings.HasPrefix(a, "-") && args[i+1] == "all" {
				return true
			}
		}
	}
	return false
}

// given returns whether a flag was set on the command line.
func (fs *FlagSet) Given() func(name string) bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return func(name string) bool { return set[name] }
}

// explain rewrites the flag package's errors for a person: an unknown
// flag names its nearest known one.
func (fs *FlagSet) explain(err error) error {
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return fmt.Errorf("%s (clearmatch %s -h lists the flags)", msg, fs.name)
	}
	name := strings.TrimPrefix(msg, undefined)
	if near := fs.nearest(name); near != "" {
		return fmt.Errorf("unknown flag -%s: did you mean -%s?", name, near)
	}
	return fmt.Errorf("unknown flag -%s (clearmatch %s -h all lists every flag)", name, fs.name)
}

// nearest returns the defined flag closest to name, or "" when none is
// close enough to be a likely typo.
func (fs *FlagSet) nearest(name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return NearestWord(name, names)
}

// NearestWord returns the word of words closest to w by edit distance
// (ignoring dashes and case), when it is at most a third of w's length
// away (at least 1); the first of equals, in the order of words.
func NearestWord(w string, words []string) string {
	bare := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "") }
	limit := max(1, len(w)/3)
	best, bestD := "", limit+1
	for _, c := range words {
		if d := editDistance(bare(w), bare(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours cost 1.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// printHelp prints the usage text and the flags: the common ones, or all.
func (fs *FlagSet) printHelp(all bool) {
	w := fs.out
	fmt.Fprintf(w, "Usage: clearmatch %s\n\nFlags:\n", fs.usage)
	if all && fs.groups != nil {
		for _, g := range fs.groups {
			fmt.Fprintf(w, "\n%s:\n", g.title)
			for _, n := range g.names {
				printFlag(w, fs.Lookup(n))
			}
		}
		return
	}
	if fs.Common == nil || all {
		fs.VisitAll(func(f *flag.Flag) { printFlag(w, f) })
		return
	}
	for _, n := range fs.Common {
		if f := fs.Lookup(n); f != nil {
			printFlag(w, f)
		}
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	fmt.Fprintf(w, "\n%d more flags tune the stages: clearmatch %s -h all\n", n-len(fs.Common), fs.name)
}

// printFlag prints one flag as flag.PrintDefaults does.
func printFlag(w io.Writer, f *flag.Flag) {
	typ, usage := flag.UnquoteUsage(f)
	line := "  -" + f.Name
	if typ != "" {
		line += " " + typ
	}
	line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
		if typ == "string" {
			line += fmt.Sprintf(" (default %q)", f.DefValue)
		} else {
			line += fmt.Sprintf(" (default %v)", f.DefValue)
		}
	}
	fmt.Fprintln(w, line)
}
