package main

import (
	"slices"
	"strings"
	"testing"
)

func TestCodeStore(t *testing.T) {
	store := codeStore{t.TempDir()}
	codes := [][]float32{{1, -2.5, 3}, {0, 0, 0}, {1e-30, 7, -0.125}}
	for i, c := range codes {
		if err := store.put(i, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.put(1, codes[1]); err != nil { // a retried bundle
		t.Fatal(err)
	}
	got, err := store.block(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range codes {
		if !slices.Equal(got[i], codes[i]) {
			t.Errorf("code %d: %v, want %v", i, got[i], codes[i])
		}
	}
	if _, err := store.get(7); err == nil || !strings.Contains(err.Error(), "image 7") {
		t.Errorf("a missing code: %v, want an error naming image 7", err)
	}
	cache := newCodeCache(store, 2)
	for _, i := range []int{0, 1, 2, 0, 2, 1} {
		c, err := cache.get(i)
		if err != nil || !slices.Equal(c, codes[i]) {
			t.Fatalf("cached code %d: %v %v", i, c, err)
		}
		if cache.codes.len() > 2 {
			t.Fatalf("the cache holds %d codes, bound 2", cache.codes.len())
		}
	}
	if got, want := cache.bytes(), int64(2*3*4); got != want {
		t.Errorf("cache bytes %d, want %d", got, want)
	}
}
