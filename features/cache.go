package features

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/internal/atomicfile"
)

// The feature cache keeps one file per image and parameter set, named by
// the SHA-256 of the image's bytes and the extraction parameters, so a
// changed image or changed parameters never hit a stale entry. Files are
// written to a temporary name and renamed, and carry a CRC-32, so a torn or
// corrupt file is detected and recomputed, never trusted.

// Version 2 files hold their own key, so a file renamed to another
// image's key (both valid) is not used for the wrong image.
const cacheMagic = "CMFEAT\x02\n"

// cacheVersion changes whenever extraction changes what it computes.
const cacheVersion = "sift-opencv4.6-v3" // v2: quarter-pixel bias removed; v3: decoded by imagefile

// CacheKey returns the cache key of an image's bytes under params (a
// canonical description of the extraction parameters).
func CacheKey(data []byte, params string) string {
	h := sha256.New()
	h.Write([]byte(cacheVersion))
	h.Write([]byte{0})
	h.Write([]byte(params))
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Params describes o canonically, for CacheKey.
func (o Options) Params() string {
	o = o.withDefaults()
	return fmt.Sprintf("detect max=%d contrast=%g edge=%g maxdim=%d root=%v", o.MaxFeatures, o.ContrastThreshold, o.EdgeThreshold, o.MaxDim, o.RootSIFT)
}

// encodeSet serializes s (without its name) under key (64 hex digits).
func encodeSet(key string, s *Set) []byte {
	var b bytes.Buffer
	b.WriteString(cacheMagic)
	b.WriteString(key)
	hdr := []uint32{uint32(s.Width), uint32(s.Height), uint32(len(s.Keypoints))}
	binary.Write(&b, binary.LittleEndian, hdr)
	for _, k := range s.Keypoints {
		binary.Write(&b, binary.LittleEndian, [5]float32{k.X, k.Y, k.Size, k.Angle, k.Response})
	}
	binary.Write(&b, binary.LittleEndian, s.Desc)
	binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	return b.Bytes()
}

var errCorrupt = errors.New("corrupt cache file")

// decodeSet parses a cache file, checking its structure, checksum and key.
func decodeSet(key string, data []byte) (*Set, error) {
	head := len(cacheMagic) + len(key)
	if len(data) < head+16 || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, errCorrupt
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errCorrupt
	}
	if string(body[len(cacheMagic):head]) != key {
		return nil, errCorrupt // another image's features under this name
	}
	r := bytes.NewReader(body[head:])
	var hdr [3]uint32
	if err := binary.Read(r, binary.LittleEndian, &hdr); err != nil {
		return nil, errCorrupt
	}
	n := int(hdr[2])
	if r.Len() != n*(5+DescSize)*4 {
		return nil, errCorrupt
	}
	s := &Set{Width: int(hdr[0]), Height: int(hdr[1])}
	if n > 0 {
		s.Keypoints = make([]Keypoint, n)
		for i := range s.Keypoints {
			var k [5]float32
			binary.Read(r, binary.LittleEndian, &k)
			s.Keypoints[i] = Keypoint{k[0], k[1], k[2], k[3], k[4]}
		}
		s.Desc = make([]float32, n*DescSize)
		binary.Read(r, binary.LittleEndian, s.Desc)
		for _, v := range s.Desc {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, errCorrupt
			}
		}
	}
	return s, nil
}

// Cache is a directory of feature files.
type Cache struct{ Dir string }

func (c Cache) path(key string) string { return filepath.Join(c.Dir, key+".feat") }

// Load returns the cached set for key, or ok=false when it is missing or
// cannot be trusted.
func (c Cache) Load(key string) (s *Set, ok bool) {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	s, err = decodeSet(key, data)
	return s, err == nil
}

// Store writes s under key atomically (temporary file, then rename).
func (c Cache) Store(key string, s *Set) error {
	return atomicfile.Write(c.path(key), encodeSet(key, s))
}
