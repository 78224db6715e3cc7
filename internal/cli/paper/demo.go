package paper

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clearmatch/clearmatch/benchmark"
	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/internal/cmdline"
)

const demoUsage = `demo [-out DIR] [-force] [-seed N] [-protocol both|verified|paper]

The embedded default, needing no data: renders a planar textured scene seen
from six views (known random homographies, brightness changes and noise), then
runs the whole pipeline on the images (SIFT, ratio matching, geometric
verification and guided matching, CLEAR), evaluates it against the homographies
exactly like Graffiti, prints the tables (verified and paper protocols) and
writes images/, report.json, problem.txt and overlays/ into DIR. A rerun
replaces a folder that holds only a demo's output; any other non-empty
folder needs -force.`

// RunDemo is `clearmatch demo`.
func RunDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o benchOptions
	fs := cmdline.NewFlags("demo", demoUsage, stdout)
	fs.StringVar(&o.out, "out", "demo-out", "output directory")
	fs.BoolVar(&o.force, "force", false, "write into a non-empty output directory")
	seed := fs.Uint64("seed", 1, "seed of the scene")
	views := fs.Int("views", 6, "number of views")
	fs.IntVar(&o.workers, "workers", 0, "parallel workers (0: GOMAXPROCS)")
	fs.StringVar(&o.protocol, "protocol", "both", "both, verified (clearmatch's default) or paper (the CLEAR paper's)")
	if err := cmdline.ParseFlags(fs, args); err != nil {
		return err
	}
	if !o.force && heldByEarlierRun(o.out) {
		o.force = true // a demo rerun replaces its own output
	}
	o.minTrack = 2
	if *views < 2 || *views > 50 {
		return cmdline.Usagef("-views %d: want 2 to 50", *views)
	}
	stage, err := o.begin()
	if err != nil {
		return err
	}
	defer stage.Discard()
	fmt.Fprintf(stderr, "demo: rendering %d views of a synthetic planar scene\n", *views)
	scene, err := datasets.NewScene(datasets.SceneConfig{Views: *views, Seed: *seed})
	if err != nil {
		return err
	}
	imgDir := filepath.Join(stage.Dir, "images")
	if err := os.MkdirAll(imgDir, 0o755); err != nil {
		return err
	}
	var paths []string
	for k, v := range scene.Views {
		var b bytes.Buffer
		if err := png.Encode(&b, v); err != nil {
			return err
		}
		p := filepath.Join(imgDir, fmt.Sprintf("view%d.png", k+1))
		if err := export.WriteFileAtomic(p, b.Bytes()); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	pr := cmdline.NewProgress(stderr)
	b, err := benchmark.LoadHomography(ctx, "demo", paths, scene.H, o.workers, pr)
	if err != nil {
		return err
	}
	if err := runBenchmark(ctx, b, &o, stage, pr, stdout); err != nil {
		return err
	}
	printBenchFooter(stdout, o.out, "images/: the rendered views; ")
	return nil
}

// printBenchFooter says how to read demo's and eval's tables and where they
// wrote; first lists the files written before the benchmark's own.
func printBenchFooter(w io.Writer, out, first string) {
	fmt.Fprint(w, benchLegend)
	fmt.Fprintf(w, "output: %s (%sreport.json: these tables; problem.txt: CLEAR's input; overlays/: the matches drawn, green where the truth agrees, red where not)\n", out, first)
}

// benchLegend says how to read the tables of demo and eval.
const benchLegend = `How to read the tables: each row scores one set of matches against the true
correspondences (returned: matches given; correct: true ones among them).
"input" is the ratio-test matches, "verified" those that two-view geometry
keeps, "closure" and "pruned_closure" the naive ways to make them consistent,
"clear" CLEAR's tracks. A good run: clear is consistent and distinct (no cycle
contradicts itself, no track holds two keypoints of one image) with an F1 at or
above its input's and above both closures'.
`

// demoFiles are what a demo writes into its folder.
var demoFiles = map[string]bool{"images": true, "overlays": true, "report.json": true, "problem.txt": true}

// heldByEarlierRun reports whether dir holds a demo's output and nothing
// else: only the files a demo writes, and a report.json of the demo
// dataset. A rerun may replace such a folder without -force; a folder of
// the user's (photos in images/, say) is never taken for one.
func heldByEarlierRun(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return false
	}
	for _, e := range entries {
		if !demoFiles[e.Name()] && !strings.HasPrefix(e.Name(), ".clearmatch-tmp-") {
			return false
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return false
	}
	var rep struct {
		Dataset string `json:"dataset"`
	}
	return json.Unmarshal(b, &rep) == nil && rep.Dataset == "demo"
}
