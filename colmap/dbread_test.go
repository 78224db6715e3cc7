package colmap

import "testing"

// FuzzDecodeColmapBlobs: any keypoints or matches blob decodes or fails
// with an error; never a panic, and decoded matches are within range.
func FuzzDecodeColmapBlobs(f *testing.F) {
	f.Add(int64(1), int64(2), []byte{0, 0, 128, 63, 0, 0, 0, 64}, 3, 3)
	f.Add(int64(1), int64(6), make([]byte, 24), 1, 1)
	f.Add(int64(-1), int64(2), []byte{}, 0, 0)
	f.Add(int64(1)<<62, int64(2), []byte{}, 1, 1) // 4·n·cols overflows to 0
	f.Fuzz(func(t *testing.T, n, cols int64, data []byte, na, nb int) {
		decodeKeypoints(n, cols, data)
		ms, err := decodeMatches(n, cols, data, na, nb)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m[0] < 0 || m[0] >= na || m[1] < 0 || m[1] >= nb {
				t.Fatalf("match %v out of %d, %d", m, na, nb)
			}
		}
	})
}
