package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/atomicfile"
	"github.com/clearmatch/clearmatch/pairwise"
)

// The pair cache keeps each pair's ratio matches and its verification on
// disk, one file each, so that an interrupted run, or a run on a folder
// with images added, only matches and verifies what it has not done. A
// pair's stage is a pure function of the two images' features and the
// options, and the key says so: the SHA-256 of both images' digests (their
// keypoints, SIFT descriptors, size and pixel scale), the stage's
// options and the matcher or estimator. Files are written to a temporary
// name and renamed, carry their key and a CRC-32, and anything that does
// not check out is recomputed, never trusted.

const pairCacheMagic = "CMPAIR\x01\n"

// pairCacheVersion changes whenever matching or verification changes what
// it computes for the same inputs and options.
const pairCacheVersion = "pairs-v3" // v2: the verification options are in the key; v3: no inlier-ratio rejection by default

type pairCache struct {
	dir         string
	digest      [][32]byte
	matchParams string
	est         pairwise.Estimator
	intrinsics  geom.Intrinsics

	mu       sync.Mutex
	err      error // the first store error; storing stops after it
	hitMatch int
	hitVerif int
}

func newPairCache(dir string, scene *Scene, m pairwise.Matcher, est pairwise.Estimator, s PairStage) (*pairCache, error) {
	c := &pairCache{dir: dir, digest: make([][32]byte, len(scene.Sets))}
	var scale []float64 // the key's scale is 1 without verification, which alone reads it
	if !s.Verification.Off {
		scale = scene.Scale
	}
	for i, set := range scene.Sets {
		d, err := set.LoadFloats()
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		binary.Write(h, binary.LittleEndian, [2]int64{int64(set.Width), int64(set.Height)})
		sc := 1.0
		if scale != nil {
			sc = scale[i]
		}
		binary.Write(h, binary.LittleEndian, math.Float64bits(sc))
		binary.Write(h, binary.LittleEndian, int64(len(set.Keypoints)))
		for _, k := range set.Keypoints {
			binary.Write(h, binary.LittleEndian, [2]float32{k.X, k.Y})
		}
		binary.Write(h, binary.LittleEndian, d)
		h.Sum(c.digest[i][:0])
	}
	mo := pairwise.Options{Ratio: s.Matching.ratio(), Mutual: s.Matching.Mutual}
	c.matchParams = fmt.Sprintf("%s match %T rootsift=%v %+v", pairCacheVersion, m, !s.Matching.NoRootSIFT, mo)
	c.est, c.intrinsics = est, scene.Camera
	return c, nil
}

// verifyParams is the key's text for verification with vo (which differs
// between retrieval's pairs and completion's by the inlier-ratio floor).
func (c *pairCache) verifyParams(vo pairwise.VerifyOptions) string {
	return fmt.Sprintf("%s verify %T %+v %+v %+v %s", pairCacheVersion, c.est, c.est, vo, c.intrinsics, c.matchParams)
}

func (c *pairCache) key(params string, i, j int) string {
	h := sha256.New()
	h.Write([]byte(params))
	h.Write([]byte{0})
	h.Write(c.digest[i][:])
	h.Write(c.digest[j][:])
	return hex.EncodeToString(h.Sum(nil))
}

func (c *pairCache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".pair")
}

var errPairCorrupt = errors.New("corrupt pair cache file")

func (c *pairCache) load(key string, v any) bool {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return false
	}
	head := len(pairCacheMagic) + len(key)
	if len(data) < head+4 || string(data[:len(pairCacheMagic)]) != pairCacheMagic || string(data[len(pairCacheMagic):head]) != key {
		return false
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return false
	}
	return gob.NewDecoder(bytes.NewReader(body[head:])).Decode(v) == nil
}

func (c *pairCache) store(key string, v any) {
	c.mu.Lock()
	failed := c.err != nil
	c.mu.Unlock()
	if failed {
		return
	}
	err := c.write(key, v)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = fmt.Errorf("pair cache %s: %w", c.dir, err)
		}
		c.mu.Unlock()
	}
}

func (c *pairCache) write(key string, v any) error {
	var b bytes.Buffer
	b.WriteString(pairCacheMagic)
	b.WriteString(key)
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return err
	}
	binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	return atomicfile.Write(c.path(key), b.Bytes())
}

// matches splits a batch into the pairs found in the cache and those to
// match.
func (c *pairCache) matches(batch [][2]int) (hit []pairwise.Pair, todo [][2]int) {
	for _, p := range batch {
		var ms []pairwise.Match
		if c.load(c.key(c.matchParams, p[0], p[1]), &ms) {
			hit = append(hit, pairwise.Pair{I: p[0], J: p[1], Matches: ms})
			c.hitMatch++
		} else {
			todo = append(todo, p)
		}
	}
	return hit, todo
}

func (c *pairCache) storeMatches(p pairwise.Pair) {
	c.store(c.key(c.matchParams, p.I, p.J), p.Matches)
}

// verified splits matched pairs into those whose verification with vo is
// cached and those to verify.
func (c *pairCache) verified(pairs []pairwise.Pair, vo pairwise.VerifyOptions) (hit []pairwise.Verified, todo []pairwise.Pair) {
	params := c.verifyParams(vo)
	for _, p := range pairs {
		var v pairwise.Verified
		if c.load(c.key(params, p.I, p.J), &v) {
			v.I, v.J = p.I, p.J // the key holds no indices: images may have been added
			hit = append(hit, v)
			c.hitVerif++
		} else {
			todo = append(todo, p)
		}
	}
	return hit, todo
}

// storeVerified returns the function that stores a verification with vo.
func (c *pairCache) storeVerified(vo pairwise.VerifyOptions) func(pairwise.Verified) {
	params := c.verifyParams(vo)
	return func(v pairwise.Verified) { c.store(c.key(params, v.I, v.J), v) }
}
