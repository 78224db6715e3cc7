package main

import "testing"

func TestByteSize(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{3.5 * 1024 * 1024, "3.5 MiB"},
		{2 << 30, "2.0 GiB"},
		{5 << 40, "5.0 TiB"},
		{3 << 50, "3072.0 TiB"},
	} {
		if got := byteSize(c.n); got != c.want {
			t.Errorf("byteSize(%v) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestPeakRSS(t *testing.T) {
	n, ok := peakRSS()
	if !ok {
		t.Skip("no /proc/self/status here")
	}
	if n < 1<<20 {
		t.Errorf("peak RSS %d bytes: a Go test process holds more than 1 MiB", n)
	}
}
