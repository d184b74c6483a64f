package nn

import "decoreg/internal/par"

// KVCache holds the keys and values of B sequences for incremental
// (one position at a time) causal attention, up to Tmax positions, with the
// same layout as AttentionForward: feeding positions 0..T-1 through Step
// gives AttentionForward's outputs, bit for bit where AttentionForward
// uses its direct loops (T*C/NH < 320) and within float32 rounding where
// it uses gemm.Sgemm.
//
// It owns its storage: keys and values (B, Tmax, C) each, a spare pair of
// the same size for Keep, and score scratch (B, NH, Tmax) twice. Step does
// not allocate; Keep allocates only when it grows the batch beyond every
// earlier size.
type KVCache struct {
	b, tmax, c, nh, n int
	k, v              []float32 // (b, tmax, c)
	k2, v2            []float32 // spare buffers for Keep
	pre, att          []float32 // (b, nh, tmax) scratch
}

// NewKVCache returns an empty cache for B sequences of at most Tmax
// positions of width C split into NH heads.
func NewKVCache(B, Tmax, C, NH int) *KVCache {
	checkAttn("NewKVCache", B, Tmax, C, NH)
	return &KVCache{
		b: B, tmax: Tmax, c: C, nh: NH,
		k: make([]float32, B*Tmax*C), v: make([]float32, B*Tmax*C),
		k2: make([]float32, B*Tmax*C), v2: make([]float32, B*Tmax*C),
		pre: make([]float32, B*NH*Tmax), att: make([]float32, B*NH*Tmax),
	}
}

// Len reports the number of positions filled so far.
func (c *KVCache) Len() int { return c.n }

// Batch reports the number of sequences B (changed by Keep).
func (c *KVCache) Batch() int { return c.b }

// Step attends position t = Len() of every sequence: qkv (B, 3C) holds the
// [q | k | v] of that position; its k and v are appended to the cache and
// out (B, C) receives the attention of q over positions 0..t. It panics
// when the cache already holds Tmax positions.
func (c *KVCache) Step(out, qkv []float32) {
	B, C, NH := c.b, c.c, c.nh
	C3 := 3 * C
	need(out, B*C, "KVCache.Step out")
	need(qkv, B*C3, "KVCache.Step qkv")
	if c.n == c.tmax {
		panic("nn: KVCache.Step on a full cache")
	}
	t := c.n
	for b := 0; b < B; b++ {
		copy(c.k[(b*c.tmax+t)*C:(b*c.tmax+t+1)*C], qkv[b*C3+C:b*C3+2*C])
		copy(c.v[(b*c.tmax+t)*C:(b*c.tmax+t+1)*C], qkv[b*C3+2*C:b*C3+3*C])
	}
	c.n++
	hs := C / NH
	par.For(B*NH, 4*c.n*hs, kvStep{c, out, qkv, hs, attnScale(hs)})
}

// kvStep owns (sequence, head) pairs lo..hi-1 of one KVCache.Step.
type kvStep struct {
	c        *KVCache
	out, qkv []float32
	hs       int
	scale    float32
}

func (k kvStep) Run(lo, hi int) {
	c, hs, n, C := k.c, k.hs, k.c.n, k.c.c
	C3 := 3 * C
	for bh := lo; bh < hi; bh++ {
		b, h := bh/c.nh, bh%c.nh
		base := b*c.tmax*C + h*hs
		attendRow(k.out[b*C+h*hs:b*C+(h+1)*hs],
			c.pre[bh*c.tmax:bh*c.tmax+n], c.att[bh*c.tmax:bh*c.tmax+n],
			k.qkv[b*C3+h*hs:b*C3+(h+1)*hs], c.k[base:], c.v[base:], C, n, k.scale)
	}
}

// Keep reorders, duplicates or drops sequences (as beam search and
// sampling with early finishes need): afterwards sequence i is the old
// sequence idx[i], and Batch() is len(idx). Len() is unchanged. An index
// outside [0, Batch()) panics.
func (c *KVCache) Keep(idx []int) {
	nb, row, used := len(idx), c.tmax*c.c, c.n*c.c
	for _, j := range idx {
		if j < 0 || j >= c.b {
			panic("nn: KVCache.Keep index out of range")
		}
	}
	if cap(c.k2) < nb*row {
		c.k2, c.v2 = make([]float32, nb*row), make([]float32, nb*row)
	}
	c.k2, c.v2 = c.k2[:nb*row], c.v2[:nb*row]
	for i, j := range idx {
		copy(c.k2[i*row:i*row+used], c.k[j*row:j*row+used])
		copy(c.v2[i*row:i*row+used], c.v[j*row:j*row+used])
	}
	c.k, c.k2 = c.k2, c.k
	c.v, c.v2 = c.v2, c.v
	if s := nb * c.nh * c.tmax; cap(c.pre) < s {
		c.pre, c.att = make([]float32, s), make([]float32, s)
	} else {
		c.pre, c.att = c.pre[:s], c.att[:s]
	}
	c.b = nb
}

// Reset empties the cache (Len() becomes 0), keeping Batch() and storage.
func (c *KVCache) Reset() { c.n = 0 }
