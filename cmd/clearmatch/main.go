// Command clearmatch turns image folders into cycle-consistent tracks with
// CLEAR, and landmark maps into fused maps. See `clearmatch help`; the
// commands live in package internal/cli.
package main

import (
	"os"

	"github.com/clearmatch/clearmatch/internal/cli"
)

func main() { os.Exit(cli.Main()) }
