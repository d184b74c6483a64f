package nn

import (
	"math"

	"decoreg/internal/gemm"
	"decoreg/internal/par"
)

// The periodic embedding with per-feature linear maps of Gorishniy et al.,
// "On Embeddings for Numerical Features in Tabular Deep Learning" (2022),
// PLR without its ReLU (the caller applies ReLUInPlace and ReLUMask, as
// for the encoder's Linear layers). For each of the F features of a row x,
// with K frequencies c_j and D outputs per feature,
//
//	p_j = [cos(2π c_j1 x_j) .. cos(2π c_jK x_j), sin(2π c_j1 x_j) .. sin(2π c_jK x_j)]
//	out_j = W_j p_j + b_j
//
// (the order of rtdl_num_embeddings' PeriodicEmbeddings, cos then sin),
// and the row's output is out_1 .. out_F concatenated. The maps W_j are
// the features' own (not shared: PLR, not "PLR lite").
//
//	in (N, F), freq (F, K), w (F, D, 2K), b (F, D), out (N, F*D),
//	feat (N, F*2K): the p_j of every row, kept for the backward pass.
//
// The phases 2π c x and their sines and cosines are computed in float64;
// the per-feature linear maps and their gradients are matrix products
// (gemm.Sgemm, one per feature, as the Linear layers'), and the sums over
// rows of the bias and frequency gradients are accumulated in float64.

// PLRForward computes out and feat from in as described above.
func PLRForward(threads int, out, feat, in, freq, w, b []float32, N, F, K, D int) {
	needDims("PLRForward", N, F, K, D)
	need(out, N*F*D, "PLRForward out")
	need(feat, N*F*2*K, "PLRForward feat")
	need(in, N*F, "PLRForward in")
	need(freq, F*K, "PLRForward freq")
	need(w, F*D*2*K, "PLRForward w")
	need(b, F*D, "PLRForward b")
	if N == 0 || F == 0 {
		return
	}
	par.For(threads, N, F*K*40, plrPeriodic{out, feat, in, freq, b, F, K, D})
	outer, inner := featureThreads(threads, F)
	par.For(outer, F, N*D*2*K, plrMatmul{kind: plrOut, th: inner, out: out, feat: feat, w: w, N: N, F: F, K: K, D: D})
}

// featureThreads splits threads between a loop over the F features (outer)
// and the matrix products inside it (inner): the features when there are
// enough of them, else the products. Either way every product gives the
// same bits (gemm.Sgemm's result does not depend on its thread count).
func featureThreads(threads, F int) (outer, inner int) {
	if F >= threads {
		return threads, 1
	}
	return 1, threads
}

// plrPeriodic sets, for rows lo..hi-1, the periodic features feat and the
// bias in out (the products are added by plrMatmul).
type plrPeriodic struct {
	out, feat, in, freq, b []float32
	F, K, D                int
}

func (k plrPeriodic) Run(lo, hi int) {
	F, K, D := k.F, k.K, k.D
	K2 := 2 * K
	for i := lo; i < hi; i++ {
		copy(k.out[i*F*D:(i+1)*F*D], k.b[:F*D])
		for j := range F {
			x := float64(k.in[i*F+j])
			fr := k.freq[j*K : (j+1)*K]
			p := k.feat[(i*F+j)*K2 : (i*F+j+1)*K2]
			for l, c := range fr {
				s, co := math.Sincos(2 * math.Pi * float64(c) * x)
				p[l], p[K+l] = float32(co), float32(s)
			}
		}
	}
}

// The matrix products of feature j, on the column blocks of the row-major
// (N, F*D) and (N, F*2K) buffers that belong to it.
const (
	plrOut   = iota // out_j  += feat_j · W_jᵀ     (N, D)
	plrDFeat        // dfeat_j = dout_j · W_j      (N, 2K)
	plrDW           // dW_j   += dout_jᵀ · feat_j  (D, 2K)
)

// plrMatmul runs product kind for features lo..hi-1, each one multiply on
// th threads.
type plrMatmul struct {
	kind, th                 int
	out, feat, w, dout, dbuf []float32
	N, F, K, D               int
}

func (k plrMatmul) Run(lo, hi int) {
	N, F, K, D := k.N, k.F, k.K, k.D
	K2 := 2 * K
	lf, lw, lo2 := max(F*K2, 1), max(K2, 1), max(F*D, 1) // strides (>= 1 for gemm when K or D is 0)
	for j := lo; j < hi; j++ {
		wj := k.w[j*D*K2 : (j+1)*D*K2]
		switch k.kind {
		case plrOut:
			gemm.Sgemm(k.th, false, true, N, D, K2, 1, k.feat[j*K2:], lf, wj, lw, 1, k.out[j*D:], lo2)
		case plrDFeat:
			gemm.Sgemm(k.th, false, false, N, K2, D, 1, k.dout[j*D:], lo2, wj, lw, 0, k.dbuf[j*K2:], lf)
		case plrDW:
			gemm.Sgemm(k.th, true, false, D, K2, N, 1, k.dout[j*D:], lo2, k.feat[j*K2:], lf, 1, wj, lw)
		}
	}
}

// PLRBackward computes the gradients of PLRForward for dout (N, F*D), the
// gradient of out (already masked by the caller's ReLU):
//
//	din   (N, F)     overwritten
//	dfreq (F, K)     added to
//	dw    (F, D, 2K) added to
//	db    (F, D)     added to
//
// Any of them may be nil. dfeat (N, F*2K) is scratch, needed (and
// overwritten) when din or dfreq is wanted. feat is PLRForward's. The
// work is split over rows (din), features (the products) or parameters
// (the sums over rows), so results do not depend on threads.
func PLRBackward(threads int, din, dfreq, dw, db, dfeat, dout, feat, in, freq, w []float32, N, F, K, D int) {
	needDims("PLRBackward", N, F, K, D)
	need(dout, N*F*D, "PLRBackward dout")
	needOpt(din, N*F, "PLRBackward din")
	needOpt(dfreq, F*K, "PLRBackward dfreq")
	needOpt(dw, F*D*2*K, "PLRBackward dw")
	needOpt(db, F*D, "PLRBackward db")
	if din != nil || dfreq != nil {
		need(dfeat, N*F*2*K, "PLRBackward dfeat")
		need(feat, N*F*2*K, "PLRBackward feat")
		need(w, F*D*2*K, "PLRBackward w")
		if din != nil {
			need(freq, F*K, "PLRBackward freq")
		}
		if dfreq != nil {
			need(in, N*F, "PLRBackward in")
		}
	}
	if dw != nil {
		need(feat, N*F*2*K, "PLRBackward feat")
	}
	if N == 0 || F == 0 {
		if din != nil {
			clear(din[:N*F])
		}
		return
	}
	outer, inner := featureThreads(threads, F)
	if din != nil || dfreq != nil {
		par.For(outer, F, N*D*2*K, plrMatmul{kind: plrDFeat, th: inner, w: w, dout: dout, dbuf: dfeat, N: N, F: F, K: K, D: D})
		par.For(threads, N, F*K*8, plrBackPhase{din, dfeat, feat, freq, F, K})
		if dfreq != nil {
			par.For(threads, F*K, N, plrBackFreq{dfreq, dfeat, in, N, F, K})
		}
	}
	if dw != nil {
		par.For(outer, F, N*D*2*K, plrMatmul{kind: plrDW, th: inner, feat: feat, w: dw, dout: dout, N: N, F: F, K: K, D: D})
	}
	if db != nil {
		par.For(threads, blocks(F*D), N*colBlock, colSums{db, dout, N, F * D})
	}
}

// plrBackPhase turns, for rows lo..hi-1, the gradient of the periodic
// features dp (in dfeat) into that of the phases 2π c x, written over
// dfeat's first K values of every feature, dz_l = -sin(z_l) dp_l +
// cos(z_l) dp_{K+l}, and sets din_j = 2π sum_l c_l dz_l (float64 sums).
type plrBackPhase struct {
	din, dfeat, feat, freq []float32
	F, K                   int
}

func (k plrBackPhase) Run(lo, hi int) {
	F, K := k.F, k.K
	K2 := 2 * K
	for i := lo; i < hi; i++ {
		for j := range F {
			dp := k.dfeat[(i*F+j)*K2 : (i*F+j+1)*K2]
			p := k.feat[(i*F+j)*K2 : (i*F+j+1)*K2]
			var dx float64
			for l := range K {
				co, s := float64(p[l]), float64(p[K+l])
				dz := float32(-s*float64(dp[l]) + co*float64(dp[K+l]))
				dp[l] = dz
				if k.din != nil {
					dx += float64(k.freq[j*K+l]) * float64(dz)
				}
			}
			if k.din != nil {
				k.din[i*F+j] = float32(2 * math.Pi * dx)
			}
		}
	}
}

// plrBackFreq owns dfreq[lo..hi-1] (index j*K+l): dfreq += 2π sum_i x_ij dz_ijl.
type plrBackFreq struct {
	dfreq, dfeat, in []float32
	N, F, K          int
}

func (k plrBackFreq) Run(lo, hi int) {
	F, K := k.F, k.K
	for t := lo; t < hi; t++ {
		j, l := t/K, t%K
		var s float64
		for i := range k.N {
			s += float64(k.in[i*F+j]) * float64(k.dfeat[(i*F+j)*2*K+l])
		}
		k.dfreq[t] += float32(2 * math.Pi * s)
	}
}
