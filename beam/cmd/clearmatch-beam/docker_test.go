package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDockerRecipe checks what can be checked of the worker container's
// recipe without a Docker engine: every instruction is one Docker knows,
// every file it copies from the repository exists, and every package it
// builds resolves in this module (the binary and Beam's boot loader).
func TestDockerRecipe(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	b, err := os.ReadFile(filepath.Join(root, "docker", "Dockerfile.beam"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{"FROM": true, "RUN": true, "COPY": true, "ARG": true, "ENV": true, "WORKDIR": true, "ENTRYPOINT": true, "CMD": true}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	var builds []string
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if !known[f[0]] {
			t.Errorf("line %d: unknown instruction %q", n+1, f[0])
		}
		if f[0] == "COPY" && !strings.HasPrefix(f[1], "--from=") {
			for _, src := range f[1 : len(f)-1] {
				if _, err := os.Stat(filepath.Join(root, src)); err != nil {
					t.Errorf("line %d: COPY %s: %v", n+1, src, err)
				}
			}
		}
		for _, m := range regexp.MustCompile(`go build -o \S+ (\S+)`).FindAllStringSubmatch(line, -1) {
			builds = append(builds, m[1])
		}
	}
	if len(builds) != 2 {
		t.Fatalf("the recipe builds %v, want the binary and boot", builds)
	}
	cmd := exec.Command("go", append([]string{"list"}, builds...)...)
	cmd.Dir = filepath.Join(root, "beam") // where the recipe runs go build
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go list %v: %v\n%s", builds, err, out)
	}
}
