package nn

import (
	"fmt"
	"math"
	"testing"

	"decoreg/internal/rng"
)

// attention64 is the float64 twin of AttentionForward, written from the
// definition: per sequence, head and query t, softmax over keys t2 <= t of
// q·k/sqrt(hs), then the weighted sum of values. It returns out and att.
func attention64(qkv []float64, B, T, C, NH int) (out, att []float64) {
	hs := C / NH
	out, att = make([]float64, B*T*C), make([]float64, B*NH*T*T)
	at := func(b, t, part, h, i int) float64 { return qkv[(b*T+t)*3*C+part*C+h*hs+i] }
	for b := 0; b < B; b++ {
		for h := 0; h < NH; h++ {
			for t := 0; t < T; t++ {
				s := make([]float64, t+1)
				mx := math.Inf(-1)
				for t2 := 0; t2 <= t; t2++ {
					for i := 0; i < hs; i++ {
						s[t2] += at(b, t, 0, h, i) * at(b, t2, 1, h, i)
					}
					s[t2] /= math.Sqrt(float64(hs))
					mx = math.Max(mx, s[t2])
				}
				z := 0.0
				for t2 := range s {
					s[t2] = math.Exp(s[t2] - mx)
					z += s[t2]
				}
				for t2 := range s {
					p := s[t2] / z
					att[((b*NH+h)*T+t)*T+t2] = p
					for i := 0; i < hs; i++ {
						out[(b*T+t)*C+h*hs+i] += p * at(b, t2, 2, h, i)
					}
				}
			}
		}
	}
	return out, att
}

// withGemmAttention runs f with the per-head products on the direct loops
// (gemm false) or on gemm.Sgemm (gemm true).
func withGemmAttention(useGemm bool, f func()) {
	old := attnGemmMin
	defer func() { attnGemmMin = old }()
	if useGemm {
		attnGemmMin = 0
	} else {
		attnGemmMin = math.MaxInt
	}
	f()
}

func TestAttention(t *testing.T) {
	for _, useGemm := range []bool{false, true} {
		for _, sz := range []struct{ B, T, C, NH int }{{2, 4, 6, 2}, {1, 1, 2, 1}, {1, 5, 4, 4}} {
			withGemmAttention(useGemm, func() {
				r := rng.New(7)
				B, T, C, NH := sz.B, sz.T, sz.C, sz.NH
				qkv, g := uniform(r, B*T*3*C, 1.5), uniform(r, B*T*C, 1)
				out := uniform(r, B*T*C, 1)
				preatt, att := uniform(r, B*NH*T*T, 1), uniform(r, B*NH*T*T, 1)
				AttentionForward(2, out, preatt, att, qkv, B, T, C, NH)
				o64, a64 := attention64(to64(qkv), B, T, C, NH)
				checkClose(t, "Attention out", out, o64, fwdAtol, fwdRtol)
				checkClose(t, "Attention att", att, a64, fwdAtol, fwdRtol)
				for bh := 0; bh < B*NH; bh++ {
					for q := 0; q < T; q++ {
						for k := q + 1; k < T; k++ {
							if preatt[(bh*T+q)*T+k] != 0 {
								t.Fatalf("gemm=%v: preatt above the diagonal not 0", useGemm)
							}
						}
					}
				}
				dqkv := garbage(B * T * 3 * C)                                 // overwritten
				dpre, datt := uniform(r, B*NH*T*T, 1), uniform(r, B*NH*T*T, 1) // scratch: overwritten
				AttentionBackward(2, dqkv, dpre, datt, g, qkv, att, B, T, C, NH)
				checkSetGrad(t, "Attention dqkv", dqkv, qkv, nil, func(x []float64) float64 {
					o, _ := attention64(x, B, T, C, NH)
					return weighted(o, g)
				})
				// dqkv checks datt and dpreatt on the way; above the
				// diagonal both must be 0.
				for bh := 0; bh < B*NH; bh++ {
					for q := 0; q < T; q++ {
						for k := q + 1; k < T; k++ {
							if dpre[(bh*T+q)*T+k] != 0 || datt[(bh*T+q)*T+k] != 0 {
								t.Fatalf("gemm=%v: dpreatt/datt above the diagonal not 0", useGemm)
							}
						}
					}
				}
			})
		}
	}
}

func TestAttentionPathsAgree(t *testing.T) {
	r := rng.New(8)
	B, T, C, NH := 3, 9, 12, 3
	qkv, g := uniform(r, B*T*3*C, 1), uniform(r, B*T*C, 1)
	run := func(useGemm bool) (out, dqkv []float32) {
		out, dqkv = make([]float32, B*T*C), make([]float32, B*T*3*C)
		pre, att := make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
		dpre, datt := make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
		withGemmAttention(useGemm, func() {
			AttentionForward(2, out, pre, att, qkv, B, T, C, NH)
			AttentionBackward(2, dqkv, dpre, datt, g, qkv, att, B, T, C, NH)
		})
		return out, dqkv
	}
	o1, d1 := run(false)
	o2, d2 := run(true)
	checkClose(t, "gemm vs direct out", o2, to64(o1), 1e-6, 1e-5)
	checkClose(t, "gemm vs direct dqkv", d2, to64(d1), 1e-6, 1e-5)
}

func TestAttentionCausal(t *testing.T) {
	r := rng.New(9)
	B, T, C, NH := 2, 6, 8, 2
	qkv := uniform(r, B*T*3*C, 1)
	out := func(qkv []float32) []float32 {
		o := make([]float32, B*T*C)
		AttentionForward(2, o, make([]float32, B*NH*T*T), make([]float32, B*NH*T*T), qkv, B, T, C, NH)
		return o
	}
	base := out(qkv)
	for tc := 0; tc < T; tc++ {
		changed := append([]float32(nil), qkv...)
		for b := 0; b < B; b++ {
			for j := 0; j < 3*C; j++ {
				changed[(b*T+tc)*3*C+j] += 0.5
			}
		}
		o := out(changed)
		for b := 0; b < B; b++ {
			for tt := 0; tt < T; tt++ {
				row, row0 := o[(b*T+tt)*C:(b*T+tt+1)*C], base[(b*T+tt)*C:(b*T+tt+1)*C]
				same := equalBits(row, row0) < 0
				if tt < tc && !same {
					t.Fatalf("changing position %d changed output at earlier position %d", tc, tt)
				}
				if tt >= tc && same {
					t.Fatalf("changing position %d left position %d unchanged", tc, tt)
				}
			}
		}
	}
}

// rowsOf returns the qkv (B, 3C) of position t from a (B, T, 3C) buffer.
func rowsOf(qkv []float32, B, T, C, t int) []float32 {
	s := make([]float32, 0, B*3*C)
	for b := 0; b < B; b++ {
		s = append(s, qkv[(b*T+t)*3*C:(b*T+t+1)*3*C]...)
	}
	return s
}

func fullAttention(qkv []float32, B, T, C, NH int) []float32 {
	o := make([]float32, B*T*C)
	AttentionForward(2, o, make([]float32, B*NH*T*T), make([]float32, B*NH*T*T), qkv, B, T, C, NH)
	return o
}

func TestKVCacheMatchesForward(t *testing.T) {
	// One block of 8 keys; three blocks (T > 8); a head wider than
	// kvBlockHS (the scalar loops), one whose values take several
	// blocks of fewer than 8 positions, and one too wide for a block (its
	// values read in place). The bits are checked against
	// AttentionForward's direct loops (forced on), the values against its
	// multiplies within rounding.
	for _, sz := range []struct{ B, T, C, NH int }{{3, 7, 8, 2}, {3, 19, 32, 2}, {3, 2, 2 * (kvBlockHS + 11), 2}, {3, 17, 2 * (kvBlockHS + 11), 2}, {3, 3, 8*kvBlockHS + 5, 1}, {3, 9, 8, 1}, {5, 7, 32, 1}, {3, 17, 128, 4}, {3, 5, 8*kvBlockHS + 8, 1}} {
		t.Run(fmt.Sprintf("B%d_T%d_C%d_NH%d", sz.B, sz.T, sz.C, sz.NH), func(t *testing.T) {
			testKVCacheMatchesForward(t, sz.B, sz.T, sz.C, sz.NH)
		})
	}
}

func testKVCacheMatchesForward(t *testing.T, B, T, C, NH int) {
	r := rng.New(10)
	qkv := uniform(r, B*T*3*C, 1.5)
	for _, useGemm := range []bool{false, true} {
		var want []float32
		withGemmAttention(useGemm, func() { want = fullAttention(qkv, B, T, C, NH) })
		c := NewKVCache(B, T, C, NH)
		for pass := 0; pass < 3; pass++ { // later passes check Restart
			out := make([]float32, B*C)
			for tt := 0; tt < T; tt++ {
				if c.Len() != tt {
					t.Fatalf("Len %d before step %d", c.Len(), tt)
				}
				c.Step(2, out, rowsOf(qkv, B, T, C, tt))
				for b := 0; b < B; b++ {
					w := to64(want[(b*T+tt)*C : (b*T+tt+1)*C])
					checkClose(t, "KVCache.Step", out[b*C:(b+1)*C], w, 1e-5, 0)
					if !useGemm && equalBits(out[b*C:(b+1)*C], want[(b*T+tt)*C:(b*T+tt+1)*C]) >= 0 {
						t.Fatalf("direct path: Step differs in bits from AttentionForward at b %d t %d", b, tt)
					}
				}
			}
			mustPanic(t, "step on full cache", func() { c.Step(2, out, rowsOf(qkv, B, T, C, 0)) })
			if pass == 1 {
				c.Keep([]int{0, 1, 2, 2, 1}) // grow, then restart at B
			}
			c.Restart(B)
		}
	}
}

func TestKVCacheKeep(t *testing.T) {
	// Heads of 2 floats (the scalar loops) and of 32 (the vector
	// kernels where the build has them).
	for _, c := range []struct{ C, NH int }{{4, 2}, {64, 2}} {
		t.Run(fmt.Sprintf("C%d_NH%d", c.C, c.NH), func(t *testing.T) { testKVCacheKeep(t, c.C, c.NH) })
	}
}

func testKVCacheKeep(t *testing.T, C, NH int) {
	r := rng.New(11)
	B, T := 3, 8
	c := NewKVCache(B, T, C, NH)
	// hist[i] holds the (3C) rows fed so far to current sequence i; after
	// each Step the output must equal full attention over that history.
	hist := make([][]float32, B)
	step := func() {
		nb, n := c.Batch(), c.Len()+1
		rows := uniform(r, nb*3*C, 1)
		ref := make([]float32, 0, nb*n*3*C)
		for i := range hist {
			hist[i] = append(hist[i], rows[i*3*C:(i+1)*3*C]...)
			ref = append(ref, hist[i]...)
		}
		out := make([]float32, nb*C)
		c.Step(2, out, rows)
		want := fullAttention(ref, nb, n, C, NH)
		for b := 0; b < nb; b++ {
			// The direct loops (T*C/NH < 320): the same bits.
			if i := equalBits(out[b*C:(b+1)*C], want[(b*n+n-1)*C:(b*n+n)*C]); i >= 0 {
				t.Fatalf("Step after Keep: sequence %d position %d differs from AttentionForward at %d: %v, want %v",
					b, n-1, i, out[b*C+i], want[(b*n+n-1)*C+i])
			}
		}
	}
	keep := func(idx []int) {
		c.Keep(idx)
		h := make([][]float32, len(idx))
		for i, j := range idx {
			h[i] = append([]float32(nil), hist[j]...)
		}
		hist = h
		if c.Batch() != len(idx) || c.Len() != len(hist[0])/(3*C) {
			t.Fatalf("after Keep(%v): Batch %d Len %d", idx, c.Batch(), c.Len())
		}
	}
	step()
	step()
	keep([]int{2, 0, 0, 1, 2}) // grow, duplicate, reorder
	step()
	keep([]int{4, 1}) // shrink
	step()
	keep([]int{1, 0}) // swap in place
	step()
	keep([]int{0, 1, 1, 0, 1, 0}) // grow beyond any earlier size
	step()
	step()
	mustPanic(t, "Keep out of range", func() { c.Keep([]int{6}) })
}

// TestAttentionWeightsNoSubnormals checks that attention weights below the
// smallest normal float32 are zeros, in softmaxCausal and in the blocked
// softmaxCausalBlock alike, and that both give the same bits.
func TestAttentionWeightsNoSubnormals(t *testing.T) {
	T := 4
	pre := []float32{
		0, 0, 0, 0,
		0, -100, 0, 0,
		0, -86, -87.5, 0,
		-88, 0, -90, -86.5,
	}
	blockPre := append([]float32(nil), pre...)
	block := make([]float32, T*T)
	softmaxCausalBlock(blockPre, block, T, nil)
	for r := range T {
		a := make([]float32, T)
		softmaxCausal(append([]float32(nil), pre[r*T:(r+1)*T]...), a, r+1)
		for j, x := range a {
			if x != 0 && math.Abs(float64(x)) < 0x1p-126 {
				t.Errorf("row %d weight %d = %g is subnormal", r, j, x)
			}
			if math.Float32bits(x) != math.Float32bits(block[r*T+j]) {
				t.Errorf("row %d weight %d: softmaxCausal %g, softmaxCausalBlock %g", r, j, x, block[r*T+j])
			}
		}
	}
	if block[1*T+1] != 0 || block[2*T+2] != 0 || block[2*T+1] == 0 {
		t.Errorf("weights %v: want exp(-100) and exp(-87.5)/sum as 0, exp(-86)/sum kept", block)
	}
}
