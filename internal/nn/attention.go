package nn

import (
	"math"
	"sync"

	"decoreg/internal/gemm"
	"decoreg/internal/par"
	"decoreg/internal/vec"
)

// attnGemmMin is the least T*hs (sequence length times head size) for which
// the per-head products of AttentionForward and AttentionBackward go
// through gemm.Sgemm; smaller heads use direct loops, which avoid the call
// overhead. BenchmarkAttention on the 2-core AVX-512 machine (B 256, both
// passes): T 4, hs 32: direct 3.0 GFLOP/s, gemm 0.6-1.0; T 8, hs 32: 3-3.7
// vs 2.3-3.3; T 8, hs 8: 1.9 vs 0.8-1.0; T 12, hs 32: 3.3-4.2 vs 6.1-7.7;
// T 128, hs 32: 2.1 vs 12.9.
var attnGemmMin = 320

// checkAttn validates attention sizes and returns the head size C/NH.
func checkAttn(what string, B, T, C, NH int) int {
	needDims(what, B, T, C, NH)
	if NH == 0 || C%NH != 0 {
		panic("nn: " + what + " C not divisible by NH")
	}
	return C / NH
}

// AttentionForward is causal multi-head self-attention.
//
//	qkv    (B, T, 3C): per position [q | k | v], each C = NH heads of hs = C/NH
//	preatt (B, NH, T, T): preatt[b,h,t,t2] = q_t · k_t2 / sqrt(hs) for t2 <= t, 0 above
//	att    (B, NH, T, T): att[b,h,t,:] = softmax over t2 <= t of preatt, 0 above
//	out    (B, T, C): out[b,t,h*hs:(h+1)*hs] = sum over t2 <= t of att[b,h,t,t2] * v_t2
//
// preatt and att are saved for AttentionBackward. Work is split over the
// B*NH (sequence, head) pairs.
func AttentionForward(threads int, out, preatt, att, qkv []float32, B, T, C, NH int) {
	hs := checkAttn("AttentionForward", B, T, C, NH)
	C3 := 3 * C
	need(out, B*T*C, "AttentionForward out")
	need(preatt, B*NH*T*T, "AttentionForward preatt")
	need(att, B*NH*T*T, "AttentionForward att")
	need(qkv, B*T*C3, "AttentionForward qkv")
	if B*T*C == 0 {
		return
	}
	par.For(threads, B*NH, 2*T*T*hs, attentionForward{out, preatt, att, qkv,
		attnShape{T, C, NH, hs, attnScale(hs), T*hs >= attnGemmMin, threads}})
}

// attnShape carries the sizes shared by the attention kernels, and the
// thread count of the call, which their multiplies (gemm.Sgemm) take too.
type attnShape struct {
	T, C, NH, hs int
	scale        float32
	useGemm      bool
	threads      int
}

// attentionForward owns (sequence, head) pairs lo..hi-1.
type attentionForward struct {
	out, preatt, att, qkv []float32
	attnShape
}

func (k attentionForward) Run(lo, hi int) {
	T, C, NH, hs, scale := k.T, k.C, k.NH, k.hs, k.scale
	C3 := 3 * C
	if k.useGemm {
		for bh := lo; bh < hi; bh++ {
			b, h := bh/NH, bh%NH
			q := k.qkv[b*T*C3+h*hs:]
			key, v := q[C:], q[2*C:]
			pre, a := k.preatt[bh*T*T:(bh+1)*T*T], k.att[bh*T*T:(bh+1)*T*T]
			o := k.out[b*T*C+h*hs:]
			gemm.Sgemm(k.threads, false, true, T, T, hs, scale, q, C3, key, C3, 0, pre, T)
			for t := 0; t < T; t++ {
				softmaxCausal(pre[t*T:(t+1)*T], a[t*T:(t+1)*T], t+1)
			}
			gemm.Sgemm(k.threads, false, false, T, hs, T, 1, a, T, v, C3, 0, o, C)
		}
		return
	}
	// Direct path: the keys are transposed into kt (hs, W), zero-padded
	// to W columns, so that the scores of 4 queries against all keys are
	// one gemm.Direct tile, each score still the sum over i in increasing order.
	W := roundUp8(T)
	sc := getAttnScratch(hs*W + T*W)
	defer attnPool.Put(sc)
	kt, s := sc.f[:hs*W], sc.f[hs*W:hs*W+T*W]
	clear(kt)
	for bh := lo; bh < hi; bh++ {
		b, h := bh/NH, bh%NH
		q := k.qkv[b*T*C3+h*hs:]
		key, v := q[C:], q[2*C:]
		pre, a := k.preatt[bh*T*T:(bh+1)*T*T], k.att[bh*T*T:(bh+1)*T*T]
		transpose(kt, W, key, C3, T, hs)
		gemm.Direct(false, T, W, hs, q, C3, kt, W, s, W)
		for t := 0; t < T; t++ {
			pr, sr := pre[t*T:(t+1)*T], s[t*W:t*W+t+1]
			for t2, x := range sr {
				pr[t2] = x * scale
			}
		}
		sc.e = softmaxCausalBlock(pre, a, T, sc.e)
		// out_t = sum over t2 of att[t,t2] v_t2, the terms above the
		// diagonal being exact zeros
		gemm.Direct(false, T, hs, T, a, T, v, C3, k.out[b*T*C+h*hs:], C)
	}
}

// attnScratch is a direct attention kernel's scratch, pooled.
type attnScratch struct {
	f []float32
	e []float64 // softmaxCausalBlock's
}

var attnPool sync.Pool

func getAttnScratch(n int) *attnScratch {
	sc, _ := attnPool.Get().(*attnScratch)
	if sc == nil {
		sc = new(attnScratch)
	}
	if cap(sc.f) < n {
		sc.f = make([]float32, n)
	}
	sc.f = sc.f[:n]
	return sc
}

func roundUp8(n int) int { return (n + 7) &^ 7 }

// transpose sets dst[i*ldd+j] = src[j*lds+i] for j < rows, i < cols: the
// rows x cols block of src, transposed into dst. The vector kernel, when
// it applies, also sets dst[i*ldd+j] = 0 for rows <= j < 8.
func transpose(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	if transposeVec(dst, ldd, src, lds, rows, cols) {
		return
	}
	for j := 0; j < rows; j++ {
		for i, x := range src[j*lds : j*lds+cols] {
			dst[i*ldd+j] = x
		}
	}
}

func attnScale(hs int) float32 { return float32(1 / math.Sqrt(float64(hs))) }

// softmaxCausal sets a[:n] = softmax(pre[:n]) (max-shifted, float64 sum,
// exp by vec.ExpNegInPlace) and pre[n:], a[n:] to 0.
func softmaxCausal(pre, a []float32, n int) {
	maxv := float32(math.Inf(-1))
	for _, s := range pre[:n] {
		maxv = max(maxv, s)
	}
	var buf [64]float64
	var sum float64
	for c0 := 0; c0 < n; c0 += len(buf) {
		e := buf[:min(len(buf), n-c0)]
		for t2 := range e {
			e[t2] = float64(pre[c0+t2] - maxv)
		}
		vec.ExpNegInPlace(e)
		sum = expsTo32(a[c0:], e, sum)
	}
	scaleWeights(a[:n], sum)
	clear(pre[n:])
	clear(a[n:len(pre)])
}

// expsTo32 sets a[i] = e[i] (exponentials, >= 0) for i < len(e), subnormal
// ones as 0, and returns sum plus their float64 sum (subnormal ones
// included), added one by one from sum so that a row taken in chunks adds
// up as one taken whole.
func expsTo32(a []float32, e []float64, sum float64) float64 {
	for i, x := range e {
		a[i] = nonneg32(x)
		sum += x
	}
	return sum
}

// scaleWeights multiplies a by float32(1/sum), results below the smallest
// normal float32 as 0 (see scaleRow). Every softmax of the attention
// (softmaxCausal, softmaxCausalBlock and the key/value-cached step) ends
// with these two, so that all give the same bits.
func scaleWeights(a []float32, sum float64) {
	inv := float32(1 / sum)
	for i := range a {
		a[i] = ftz(a[i] * inv)
	}
}

// softmaxCausalBlock is softmaxCausal on every row t of the (T, T) block
// pre (with n = t+1), into a, with the same bits: the exps of all rows go
// through one vec.ExpNegInPlace call, in e (grown as needed and returned).
func softmaxCausalBlock(pre, a []float32, T int, e []float64) []float64 {
	n := T * (T + 1) / 2
	if cap(e) < n {
		e = make([]float64, n)
	}
	e = e[:n]
	off := 0
	for t := 0; t < T; t++ {
		row := pre[t*T : t*T+t+1]
		maxv := float32(math.Inf(-1))
		for _, s := range row {
			maxv = max(maxv, s)
		}
		for t2, s := range row {
			e[off+t2] = float64(s - maxv)
		}
		off += t + 1
	}
	vec.ExpNegInPlace(e)
	off = 0
	for t := 0; t < T; t++ {
		ar := a[t*T : (t+1)*T]
		scaleWeights(ar[:t+1], expsTo32(ar, e[off:off+t+1], 0))
		clear(pre[t*T+t+1 : (t+1)*T])
		clear(ar[t+1:])
		off += t + 1
	}
	return e
}

// softmaxCausalBackward sets dp[:n] = a*(da - sum(a*da)) over the first n
// entries and dp[n:], da[n:] to 0.
func softmaxCausalBackward(dp, da, a []float32, n int) {
	var s float64
	for t2, x := range a[:n] {
		s += float64(x) * float64(da[t2])
	}
	sf := float32(s)
	for t2, x := range a[:n] {
		dp[t2] = x * (da[t2] - sf)
	}
	clear(dp[n:])
	clear(da[n:len(dp)])
}

// AttentionBackward sets dqkv (B, T, 3C) to the gradient of
// AttentionForward for dout (B, T, C), from qkv and the saved att. Per
// sequence b and head h, restating the forward lines it differentiates:
//
//	out_t = sum_t2 att[t,t2] v_t2      => datt[t,t2] = dout_t·v_t2;  dv_t2 = sum_t att[t,t2] dout_t
//	att_t = softmax(preatt_t)           => dpreatt[t,t2] = att[t,t2] (datt[t,t2] - sum_t3 att[t,t3] datt[t,t3])
//	preatt[t,t2] = scale q_t·k_t2       => dq_t = scale sum_t2 dpreatt[t,t2] k_t2;  dk_t2 = scale sum_t dpreatt[t,t2] q_t
//
// dqkv is overwritten. dpreatt and datt (B, NH, T, T) are scratch owned by
// the caller: they are overwritten too and hold ∂/∂preatt and ∂/∂att on
// return, 0 above the diagonal.
func AttentionBackward(threads int, dqkv, dpreatt, datt, dout, qkv, att []float32, B, T, C, NH int) {
	hs := checkAttn("AttentionBackward", B, T, C, NH)
	C3 := 3 * C
	need(dqkv, B*T*C3, "AttentionBackward dqkv")
	need(dpreatt, B*NH*T*T, "AttentionBackward dpreatt")
	need(datt, B*NH*T*T, "AttentionBackward datt")
	need(dout, B*T*C, "AttentionBackward dout")
	need(qkv, B*T*C3, "AttentionBackward qkv")
	need(att, B*NH*T*T, "AttentionBackward att")
	if B*T*C == 0 {
		return
	}
	par.For(threads, B*NH, 4*T*T*hs, attentionBackward{dqkv, dpreatt, datt, dout, qkv, att,
		attnShape{T, C, NH, hs, attnScale(hs), T*hs >= attnGemmMin, threads}})
}

// attentionBackward owns (sequence, head) pairs lo..hi-1: the head's
// columns of dqkv and its blocks of dpreatt and datt.
type attentionBackward struct {
	dqkv, dpreatt, datt, dout, qkv, att []float32
	attnShape
}

func (k attentionBackward) Run(lo, hi int) {
	T, C, NH, hs, scale := k.T, k.C, k.NH, k.hs, k.scale
	C3 := 3 * C
	if k.useGemm {
		for bh := lo; bh < hi; bh++ {
			b, h := bh/NH, bh%NH
			q := k.qkv[b*T*C3+h*hs:]
			key, v := q[C:], q[2*C:]
			dq := k.dqkv[b*T*C3+h*hs:]
			dk, dv := dq[C:], dq[2*C:]
			a := k.att[bh*T*T : (bh+1)*T*T]
			da, dp := k.datt[bh*T*T:(bh+1)*T*T], k.dpreatt[bh*T*T:(bh+1)*T*T]
			do := k.dout[b*T*C+h*hs:]
			gemm.Sgemm(k.threads, false, true, T, T, hs, 1, do, C, v, C3, 0, da, T)
			gemm.Sgemm(k.threads, true, false, T, hs, T, 1, a, T, do, C, 0, dv, C3)
			for t := 0; t < T; t++ {
				softmaxCausalBackward(dp[t*T:(t+1)*T], da[t*T:(t+1)*T], a[t*T:(t+1)*T], t+1)
			}
			gemm.Sgemm(k.threads, false, false, T, hs, T, scale, dp, T, key, C3, 0, dq, C3)
			gemm.Sgemm(k.threads, true, false, T, hs, T, scale, dp, T, q, C3, 0, dk, C3)
		}
		return
	}
	// Direct path, with gemm.Direct as in the forward: vt holds the values
	// transposed (hs, W), at the attention transposed, dps the scaled
	// gradient of the scores and dpst its transpose. Every gradient is
	// summed in increasing order of the other position, the terms outside
	// the causal triangle being exact zeros.
	W := roundUp8(T)
	sc := getAttnScratch(hs*W + T*W + 3*T*T)
	defer attnPool.Put(sc)
	f := sc.f
	vt, s := f[:hs*W], f[hs*W:hs*W+T*W]
	at, dps, dpst := f[hs*W+T*W:][:T*T], f[hs*W+T*W+T*T:][:T*T], f[hs*W+T*W+2*T*T:][:T*T]
	clear(vt)
	for bh := lo; bh < hi; bh++ {
		b, h := bh/NH, bh%NH
		q := k.qkv[b*T*C3+h*hs:]
		key, v := q[C:], q[2*C:]
		dq := k.dqkv[b*T*C3+h*hs:]
		dk, dv := dq[C:], dq[2*C:]
		a := k.att[bh*T*T : (bh+1)*T*T]
		da, dp := k.datt[bh*T*T:(bh+1)*T*T], k.dpreatt[bh*T*T:(bh+1)*T*T]
		do := k.dout[b*T*C+h*hs:]
		// datt[t,t2] = dout_t · v_t2
		transpose(vt, W, v, C3, T, hs)
		gemm.Direct(false, T, W, hs, do, C, vt, W, s, W)
		for t := 0; t < T; t++ {
			copy(da[t*T:t*T+t+1], s[t*W:t*W+t+1])
		}
		// dv_t2 = sum over t of att[t,t2] dout_t
		transpose(at, T, a, T, T, T)
		gemm.Direct(false, T, hs, T, at, T, do, C, dv, C3)
		for t := 0; t < T; t++ {
			softmaxCausalBackward(dp[t*T:(t+1)*T], da[t*T:(t+1)*T], a[t*T:(t+1)*T], t+1)
		}
		for i, x := range dp[:T*T] {
			dps[i] = x * scale
		}
		transpose(dpst, T, dps, T, T, T)
		// dq_t = sum over t2 of scale dpreatt[t,t2] k_t2;
		// dk_t2 = sum over t of scale dpreatt[t,t2] q_t
		gemm.Direct(false, T, hs, T, dps, T, key, C3, dq, C3)
		gemm.Direct(false, T, hs, T, dpst, T, q, C3, dk, C3)
	}
}
