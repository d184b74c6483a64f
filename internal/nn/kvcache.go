package nn

import (
	"math"

	"decoreg/internal/gemm"
	"decoreg/internal/par"
	"decoreg/internal/vec"
)

// KVCache holds the keys and values of B sequences for incremental
// (one position at a time) causal attention, up to Tmax positions, with
// the same arithmetic as AttentionForward: feeding positions 0..T-1
// through Step gives AttentionForward's outputs, bit for bit (up to the
// sign of an exact zero) where AttentionForward uses its direct loops
// (T*C/NH < 320) and within float32 rounding where it uses gemm.Sgemm.
//
// Position t's keys and values are one slab each, (B_t, C), B_t the
// batch when position t was stepped, its rows appended whole; each
// sequence records, for each of its positions, the slab row it reads
// (rows, (B, Tmax)). Keep then only copies those row numbers: sequences
// that share a prefix (the children of one prefix in a tree expansion, or
// a duplicated beam entry) share its keys and values, where a copy of
// every earlier position used to be made for each. It owns its storage:
// the slabs, the row table and its spare, and score scratch (B, NH, W),
// W = Tmax rounded up to a multiple of 8, and (B, NH, Tmax). Keep
// allocates only when its batch is larger than the table it writes into
// (the spare, last sized two Keeps or one Restart ago) or than the
// scratch, so at most twice for each new largest batch; Step only when
// its batch is larger than every earlier one at its position (after such
// a Keep, or a Restart with a larger B).
//
// Where the build has them (AVX2, and a head width that is a multiple of
// 8), a step's scores and weighted sums of values run in vector kernels
// that read the slab rows in place (kvScores, kvValues) with the
// arithmetic of gemm.Direct, so the bits do not depend on the path.
type KVCache struct {
	b, tmax, c, nh, n, w int
	ks, vs               [][]float32 // per position: (B_t, C) keys, values
	rows, rows2          []int32     // (b, tmax): sequence b's slab row at each position; spare for Keep
	pre, att             []float32   // (b, nh, w), (b, nh, tmax) scratch
	e                    []float64   // (b, nh, tmax) scratch: the softmax's exps
}

// NewKVCache returns an empty cache for B sequences of at most Tmax
// positions of width C split into NH heads.
func NewKVCache(B, Tmax, C, NH int) *KVCache {
	checkAttn("NewKVCache", B, Tmax, C, NH)
	w := roundUp8(Tmax)
	c := &KVCache{
		b: B, tmax: Tmax, c: C, nh: NH, w: w,
		ks: make([][]float32, Tmax), vs: make([][]float32, Tmax),
		rows: make([]int32, B*Tmax),
		pre:  make([]float32, B*NH*w), att: make([]float32, B*NH*Tmax),
		e: make([]float64, B*NH*Tmax),
	}
	for t := range Tmax {
		c.ks[t], c.vs[t] = make([]float32, B*C), make([]float32, B*C)
	}
	return c
}

// Len reports the number of positions filled so far.
func (c *KVCache) Len() int { return c.n }

// Batch reports the number of sequences B (changed by Keep).
func (c *KVCache) Batch() int { return c.b }

// Step attends position t = Len() of every sequence: qkv (B, 3C) holds the
// [q | k | v] of that position; its k and v are appended to the cache and
// out (B, C) receives the attention of q over positions 0..t, computed on
// up to threads goroutines. It panics when the cache already holds Tmax
// positions.
func (c *KVCache) Step(threads int, out, qkv []float32) {
	B, C, NH := c.b, c.c, c.nh
	C3 := 3 * C
	need(out, B*C, "KVCache.Step out")
	need(qkv, B*C3, "KVCache.Step qkv")
	if c.n == c.tmax {
		panic("nn: KVCache.Step on a full cache")
	}
	t := c.n
	c.ks[t], c.vs[t] = growTo(c.ks[t], B*C), growTo(c.vs[t], B*C)
	kt, vt := c.ks[t], c.vs[t]
	for b := 0; b < B; b++ {
		copy(kt[b*C:(b+1)*C], qkv[b*C3+C:b*C3+2*C])
		copy(vt[b*C:(b+1)*C], qkv[b*C3+2*C:b*C3+3*C])
		c.rows[b*c.tmax+t] = int32(b)
	}
	c.n++
	hs := C / NH
	par.For(threads, B*NH, 4*c.n*hs, kvStep{c, out, qkv, hs, attnScale(hs)})
}

// kvStep owns (sequence, head) pairs lo..hi-1 of one KVCache.Step.
type kvStep struct {
	c        *KVCache
	out, qkv []float32
	hs       int
	scale    float32
}

// kvBlockHS is the widest head whose keys kvStep transposes into a stack
// block of 8 positions for gemm.Direct; wider heads take scalar loops of
// the same arithmetic (Direct's contract: products rounded, summed left
// to right), so the bits do not depend on the path.
const kvBlockHS = 128

func (k kvStep) Run(lo, hi int) {
	c, hs, n, C := k.c, k.hs, k.c.n, k.c.c
	C3 := 3 * C
	// The scores of every (sequence, head) of the chunk first, shifted by
	// their maxima into e; then one vec.ExpNegInPlace over all of them (a
	// call per pair costs more than its few exps); then each pair's
	// softmax weights and output. The arithmetic is softmaxCausal's,
	// element for element, so the bits are the same.
	var blk [8 * kvBlockHS]float32 // keys or values of 8 positions of one head
	var kp [8]*float32             // rows of 8 positions of one head, for the vector kernels
	vk := kvAttendVec(hs)
	e := c.e[lo*n : hi*n]
	for bh := lo; bh < hi; bh++ {
		b, h := bh/c.nh, bh%c.nh
		q := k.qkv[b*C3+h*hs : b*C3+h*hs+hs]
		rows := c.rows[b*c.tmax : b*c.tmax+n]
		s := c.pre[bh*c.w : (bh+1)*c.w]
		if vk {
			// 8 keys at a time, transposed in registers; a block's
			// missing positions repeat its last key, their scores
			// (past n) unused, as Direct's on blk's stale columns are.
			for t0 := 0; t0 < n; t0 += 8 {
				last := min(8, n-t0) - 1
				for j := range kp {
					t := t0 + min(j, last)
					kp[j] = &c.ks[t][int(rows[t])*C+h*hs]
				}
				kvScores(s[t0:], q, &kp, hs)
			}
		} else if hs <= kvBlockHS {
			// Keys t0..t0+7 transposed, (hs, 8), for one Direct row.
			for t0 := 0; t0 < n; t0 += 8 {
				for j := range min(8, n-t0) {
					o := int(rows[t0+j])*C + h*hs
					for p, x := range c.ks[t0+j][o : o+hs] {
						blk[p*8+j] = x
					}
				}
				gemm.Direct(false, 1, 8, hs, q, hs, blk[:], 8, s[t0:], 8)
			}
		} else {
			for t2, r := range rows {
				o := int(r)*C + h*hs
				acc := float32(0)
				for p, x := range c.ks[t2][o : o+hs] {
					acc += float32(q[p] * x)
				}
				s[t2] = acc
			}
		}
		pre := s[:n]
		maxv := float32(math.Inf(-1))
		for t2, x := range pre {
			pre[t2] = x * k.scale
			maxv = max(maxv, pre[t2])
		}
		eb := e[(bh-lo)*n : (bh-lo+1)*n]
		for t2, x := range pre {
			eb[t2] = float64(x - maxv)
		}
	}
	vec.ExpNegInPlace(e)
	for bh := lo; bh < hi; bh++ {
		b, h := bh/c.nh, bh%c.nh
		a := c.att[bh*c.tmax : bh*c.tmax+n]
		scaleWeights(a, expsTo32(a, e[(bh-lo)*n:(bh-lo+1)*n], 0))
		rows := c.rows[b*c.tmax : b*c.tmax+n]
		o := k.out[b*C+h*hs:]
		// The weighted sum of the values, as many positions at a time as
		// blk holds (up to 8; a head wider than blk reads each position's
		// row in place): Direct with accum continues the same
		// left-to-right sum, so the bits are one Direct's over all n.
		if vk {
			for t0 := 0; t0 < n; t0 += 8 {
				cnt := min(8, n-t0)
				for j := range cnt {
					kp[j] = &c.vs[t0+j][int(rows[t0+j])*C+h*hs]
				}
				kvValues(o, a[t0:t0+cnt], &kp, hs, t0 > 0)
			}
			continue
		}
		per := min(8, len(blk)/hs)
		if per <= 1 {
			for t2, r := range rows {
				o2 := int(r)*C + h*hs
				gemm.Direct(t2 > 0, 1, hs, 1, a[t2:], 1, c.vs[t2][o2:o2+hs], hs, o, C)
			}
			continue
		}
		for t0 := 0; t0 < n; t0 += per {
			cnt := min(per, n-t0)
			for j := range cnt {
				r := int(rows[t0+j])*C + h*hs
				copy(blk[j*hs:(j+1)*hs], c.vs[t0+j][r:r+hs])
			}
			gemm.Direct(t0 > 0, 1, hs, cnt, a[t0:], cnt, blk[:], hs, o, C)
		}
	}
}

// Keep reorders, duplicates or drops sequences (as beam search and
// sampling with early finishes need): afterwards sequence i is the old
// sequence idx[i], and Batch() is len(idx). Len() is unchanged. An index
// outside [0, Batch()) panics. It copies only the sequences' slab rows
// (Len() numbers each), not their keys and values.
func (c *KVCache) Keep(idx []int) {
	nb, n := len(idx), c.n
	for _, j := range idx {
		if j < 0 || j >= c.b {
			panic("nn: KVCache.Keep index out of range")
		}
	}
	if cap(c.rows2) < nb*c.tmax {
		c.rows2 = make([]int32, nb*c.tmax)
	}
	c.rows2 = c.rows2[:nb*c.tmax]
	for i, j := range idx {
		copy(c.rows2[i*c.tmax:i*c.tmax+n], c.rows[j*c.tmax:j*c.tmax+n])
	}
	c.rows, c.rows2 = c.rows2, c.rows
	if s := nb * c.nh * c.w; cap(c.pre) < s {
		c.pre = make([]float32, s)
	} else {
		c.pre = c.pre[:s]
	}
	if s := nb * c.nh * c.tmax; cap(c.att) < s {
		c.att = make([]float32, s)
	} else {
		c.att = c.att[:s]
	}
	if s := nb * c.nh * c.tmax; cap(c.e) < s {
		c.e = make([]float64, s)
	} else {
		c.e = c.e[:s]
	}
	c.b = nb
}

// Restart empties the cache for B sequences: Len() becomes 0 and Batch()
// B. It reuses the storage when it is large enough.
func (c *KVCache) Restart(B int) {
	checkAttn("KVCache.Restart", B, c.tmax, c.c, c.nh)
	if cap(c.rows) < B*c.tmax {
		c.rows = make([]int32, B*c.tmax)
	}
	c.rows = c.rows[:B*c.tmax]
	c.pre = growTo(c.pre, B*c.nh*c.w)
	c.att = growTo(c.att, B*c.nh*c.tmax)
	if cap(c.e) < B*c.nh*c.tmax {
		c.e = make([]float64, B*c.nh*c.tmax)
	}
	c.e = c.e[:B*c.nh*c.tmax]
	c.b, c.n = B, 0
}

// growTo returns s resliced to n elements, reallocated when its capacity
// is smaller.
func growTo(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}
