package localmap_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/localmap"
)

// Two local maps that share a landmark, read from the documented CSV.
func ExampleReadCSV() {
	dir, _ := os.MkdirTemp("", "maps")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "maps.csv")
	os.WriteFile(path, []byte("map,landmark,x,y,truth\nA,1,2.0,0.5,oak\nA,2,4.0,1.0,elm\nB,1,0.1,0.4,oak\n"), 0o644)
	s, err := localmap.ReadCSV(path)
	if err != nil {
		panic(err)
	}
	for _, m := range s.Maps {
		fmt.Println(m.Name, len(m.Landmarks), "landmarks")
	}
	fmt.Println("truth for every landmark:", s.HasTruth())
	// Output:
	// A 2 landmarks
	// B 1 landmarks
	// truth for every landmark: true
}
