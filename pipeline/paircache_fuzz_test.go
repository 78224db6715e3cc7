package pipeline

import (
	"bytes"
	"os"
	"testing"

	"github.com/clearmatch/clearmatch/pairwise"
)

// FuzzPairCacheLoad: any bytes in a pair cache file are read without a
// panic, and a file is used only when it starts with the magic and its
// own key (and its CRC and gob check out).
func FuzzPairCacheLoad(f *testing.F) {
	c := &pairCache{dir: f.TempDir()}
	const key = "ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	want := []pairwise.Match{{A: 1, B: 2, Ratio: 0.5}}
	if err := c.write(key, want); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(c.path(key))
	var got []pairwise.Match
	if !c.load(key, &got) || len(got) != 1 || got[0] != want[0] {
		f.Fatalf("a good file loads as %v", got)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1))
	f.Add([]byte(pairCacheMagic))
	f.Add([]byte{})
	prefix := []byte(pairCacheMagic + key)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(c.path(key), data, 0o644); err != nil {
			t.Fatal(err)
		}
		var ms []pairwise.Match
		if c.load(key, &ms) && !bytes.HasPrefix(data, prefix) {
			t.Fatalf("a file without the magic and key was used: %q", data)
		}
		var v pairwise.Verified
		if c.load(key, &v) && !bytes.HasPrefix(data, prefix) {
			t.Fatalf("a file without the magic and key was used: %q", data)
		}
	})
}
