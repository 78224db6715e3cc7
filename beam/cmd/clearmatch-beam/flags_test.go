package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/clearmatch/clearmatch/internal/cli/match"
)

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		args, match, beam []string
	}{
		{[]string{"photos", "-out", "run", "--runner=flink", "-cache", "c"}, []string{"photos", "-out", "run", "-cache", "c"}, []string{"--runner=flink"}},
		{[]string{"-runner", "prism", "photos", "-out", "run"}, []string{"photos", "-out", "run"}, []string{"-runner", "prism"}},
		{[]string{"photos", "--environment_type", "PROCESS", "-workers", "2"}, []string{"photos", "-workers", "2"}, []string{"--environment_type", "PROCESS"}},
		// Unknown flags go to match, which names them.
		{[]string{"photos", "-no-such-flag", "1"}, []string{"photos", "-no-such-flag", "1"}, nil},
	}
	for _, c := range cases {
		m, b := splitArgs(c.args)
		if !reflect.DeepEqual(m, c.match) || !reflect.DeepEqual(b, c.beam) {
			t.Errorf("splitArgs(%q) = %q, %q; want %q, %q", c.args, m, b, c.match, c.beam)
		}
	}
}

// TestDocumentedCommands: every flag of every clearmatch-beam command line
// in docs/scale.md is match's or Beam's.
func TestDocumentedCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "scale.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	in := false
	var cmd string
	for _, line := range strings.Split(string(b), "\n") {
		switch l := strings.TrimSpace(line); {
		case strings.HasPrefix(l, "```sh"):
			in, cmd = true, ""
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		case !in:
			continue
		default:
			cmd += " " + strings.TrimSuffix(l, "\\")
			if strings.HasSuffix(l, "\\") {
				continue
			}
		}
		f := strings.Fields(cmd)
		cmd = ""
		for k, a := range f {
			if a != "clearmatch-beam" && a != "bin/clearmatch-beam" {
				continue
			}
			seen++
			for _, a := range f[k+1:] {
				name, _, _ := strings.Cut(strings.Trim(strings.TrimLeft(a, "-"), "'"), "=")
				if strings.HasPrefix(a, "-") && !match.IsFlag(name) && flag.CommandLine.Lookup(name) == nil {
					t.Errorf("docs/scale.md: %s: -%s is neither match's flag nor Beam's", strings.Join(f[k:], " "), name)
				}
			}
			break
		}
	}
	if seen < 4 {
		t.Errorf("found %d clearmatch-beam command lines in docs/scale.md", seen)
	}
}

// TestHelp: -h names clearmatch-beam and Beam's flags, then match's, and
// is not an error (cmdline.Finish exits 0 on flag.ErrHelp).
func TestHelp(t *testing.T) {
	var out strings.Builder
	err := run(context.Background(), []string{"-h"}, &out, io.Discard)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run -h: %v", err)
	}
	for _, want := range []string{"Usage: clearmatch-beam", "--runner", "-pairs"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-h does not mention %s", want)
		}
	}
}

func TestRootCause(t *testing.T) {
	err := errors.New(`job job-001 failed:\nbundle inst004 failed:\n1: DataSource[...]\n	caused by:\nDoFn[UID:4, Name: main.planFn] failed:\nbroken.jpg: not a readable image (image: unknown format)` + "\n")
	want := "the pipeline failed: broken.jpg: not a readable image (image: unknown format)"
	if got := rootCause(err).Error(); got != want {
		t.Errorf("rootCause = %q, want %q", got, want)
	}
}

// TestRefusedBeforeWork: a runner Beam does not know and an -out match
// would refuse stop the command before the pipeline starts (no "beam:"
// line), with a message naming the value.
func TestRefusedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	photos := filepath.Join(dir, "photos")
	if err := os.Mkdir(photos, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.png", "b.png"} {
		if err := os.WriteFile(filepath.Join(photos, name), []byte("not read before the pipeline"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "file")
	full := filepath.Join(dir, "full")
	for _, p := range []string{file, filepath.Join(full, "x")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := filepath.Join(dir, "cache")
	defer func(r string) { *runners.Runner = r }(*runners.Runner)
	cases := []struct {
		runner, out, want string
	}{
		{"nosuch", filepath.Join(dir, "out"), `--runner "nosuch"`},
		{"direct", filepath.Join(dir, "out"), `--runner "direct"`},
		{"", file, "exists and is not a directory"},
		{"prism", full, "is not empty (use -force)"},
	}
	for _, c := range cases {
		*runners.Runner = c.runner
		var stderr strings.Builder
		err := run(context.Background(), []string{photos, "-out", c.out, "-cache", cache}, io.Discard, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("runner %q, -out %s: %v, want an error with %q", c.runner, c.out, err, c.want)
		}
		if strings.Contains(stderr.String(), "beam:") {
			t.Errorf("runner %q, -out %s: the pipeline started:\n%s", c.runner, c.out, stderr.String())
		}
	}
	for _, r := range knownRunners {
		if err := checkRunner(r); err != nil {
			t.Errorf("checkRunner(%q): %v", r, err)
		}
	}
}
