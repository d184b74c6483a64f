package nn

import (
	"runtime/debug"
	"testing"

	"decoreg/internal/gemm"
	"decoreg/internal/par"
	"decoreg/internal/rng"
)

// allLayers runs every layer forward and backward on th threads, on
// sizes large enough for par.For to split the work, and returns all
// outputs and gradients.
func allLayers(th int) [][]float32 {
	r := rng.New(20)
	var res [][]float32
	keep := func(s ...[]float32) { res = append(res, s...) }

	N, C, OC := 512, 200, 200
	in, w, b, g := uniform(r, N*C, 1), uniform(r, OC*C, 0.1), uniform(r, OC, 1), uniform(r, N*OC, 1)
	out := make([]float32, N*OC)
	LinearForward(th, out, in, w, b, N, C, OC)
	din, dw, db := make([]float32, N*C), make([]float32, OC*C), make([]float32, OC)
	LinearBackward(th, din, dw, db, g, in, w, N, C, OC, false, false)
	keep(out, din, dw, db)

	relu, drelu := clone(out), clone(g)
	ReLUInPlace(th, relu)
	ReLUMask(th, drelu, relu)
	keep(relu, drelu)

	ln, mean, rstd := make([]float32, N*C), make([]float32, N), make([]float32, N)
	lnw, lnb := uniform(r, C, 1), uniform(r, C, 1)
	LayerNormForward(th, ln, mean, rstd, in, lnw, lnb, N, C, 1e-5)
	dln, dlnw, dlnb := make([]float32, N*C), make([]float32, C), make([]float32, C)
	LayerNormBackward(th, dln, dlnw, dlnb, g[:N*C], in, lnw, mean, rstd, N, C)
	keep(ln, mean, rstd, dln, dlnw, dlnb)

	Nt, V := 1024, 50
	tokens := make([]int32, Nt)
	for i := range tokens {
		tokens[i] = int32(r.IntN(V))
	}
	wte, emb, dwte := uniform(r, V*C, 1), make([]float32, Nt*C), make([]float32, V*C)
	EmbeddingForward(th, emb, tokens, wte, Nt, C)
	EmbeddingBackward(th, dwte, uniform(r, Nt*C, 1), tokens, Nt, C)
	Bp, Tp := 64, 16
	wpe, dwpe := uniform(r, Tp*C, 1), make([]float32, Tp*C)
	PositionalForward(th, emb, wpe, Bp, Tp, C)
	PositionalBackward(th, dwpe, uniform(r, Bp*Tp*C, 1), Bp, Tp, C)
	keep(emb, dwte, dwpe)

	B, T, Ca, NH := 16, 8, 64, 4
	qkv, ga := uniform(r, B*T*3*Ca, 1), uniform(r, B*T*Ca, 1)
	ao, pre, att := make([]float32, B*T*Ca), make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
	AttentionForward(th, ao, pre, att, qkv, B, T, Ca, NH)
	dqkv, dpre, datt := make([]float32, B*T*3*Ca), make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
	AttentionBackward(th, dqkv, dpre, datt, ga, qkv, att, B, T, Ca, NH)
	keep(ao, pre, att, dqkv, dpre, datt)
	Tg := 32 // T*hs = 512: the gemm path
	qkv, ga = uniform(r, B*Tg*3*Ca, 1), uniform(r, B*Tg*Ca, 1)
	ao, pre, att = make([]float32, B*Tg*Ca), make([]float32, B*NH*Tg*Tg), make([]float32, B*NH*Tg*Tg)
	AttentionForward(th, ao, pre, att, qkv, B, Tg, Ca, NH)
	dqkv, dpre, datt = make([]float32, B*Tg*3*Ca), make([]float32, B*NH*Tg*Tg), make([]float32, B*NH*Tg*Tg)
	AttentionBackward(th, dqkv, dpre, datt, ga, qkv, att, B, Tg, Ca, NH)
	keep(ao, pre, att, dqkv, dpre, datt)
	Bk := 64
	kv, ko := NewKVCache(Bk, T, Ca, NH), make([]float32, Bk*Ca)
	for t := 0; t < T; t++ {
		kv.Step(th, ko, uniform(r, Bk*3*Ca, 1))
		keep(append([]float32(nil), ko...))
	}

	Nc, Vc := 2048, 32
	logits, targets := uniform(r, Nc*Vc, 3), make([]int32, Nc)
	for i := range targets {
		targets[i] = int32(r.IntN(Vc))
	}
	losses, probs, dlog := make([]float32, Nc), make([]float32, Nc*Vc), make([]float32, Nc*Vc)
	SoftmaxCrossEntropyForward(th, losses, probs, logits, targets, nil, Nc, Vc)
	SoftmaxCrossEntropyBackward(th, dlog, uniform(r, Nc, 1), probs, targets, Nc, Vc)
	keep(losses, probs, dlog)

	Nm, M := 1024, 3
	params, y := uniform(r, Nm*3*M, 1), uniform(r, Nm, 1)
	ml, cache, dp := make([]float32, Nm), make([]float32, MDNCacheLen(Nm, M)), make([]float32, Nm*3*M)
	MDNForward(th, ml, cache, params, y, Nm, M)
	MDNBackward(th, dp, uniform(r, Nm, 1), cache, params, y, Nm, M)
	keep(ml, cache, dp)

	Np, Fp, Kp, Dp := 256, 5, 12, 8
	pin, pfreq, pw, pb := uniform(r, Np*Fp, 1), uniform(r, Fp*Kp, 1), uniform(r, Fp*Dp*2*Kp, 1), uniform(r, Fp*Dp, 1)
	pout, pfeat := make([]float32, Np*Fp*Dp), make([]float32, Np*Fp*2*Kp)
	PLRForward(th, pout, pfeat, pin, pfreq, pw, pb, Np, Fp, Kp, Dp)
	pdin, pdfreq, pdw, pdb := make([]float32, Np*Fp), make([]float32, Fp*Kp), make([]float32, Fp*Dp*2*Kp), make([]float32, Fp*Dp)
	PLRBackward(th, pdin, pdfreq, pdw, pdb, make([]float32, Np*Fp*2*Kp), uniform(r, Np*Fp*Dp, 1), pfeat, pin, pfreq, pw, Np, Fp, Kp, Dp)
	keep(pout, pfeat, pdin, pdfreq, pdw, pdb)

	p := uniform(r, 10000, 1)
	a := NewAdam(len(p), 1e-3)
	a.Step(th, p, uniform(r, len(p), 1))
	keep(p)
	return res
}

func TestLayersThreadInvariant(t *testing.T) {
	want := allLayers(1)
	if par.Chunks(4, 512, 8*200) < 2 {
		t.Fatal("test sizes do not split the work")
	}
	got := allLayers(4)
	for k := range want {
		if i := equalBits(got[k], want[k]); i >= 0 {
			t.Errorf("buffer %d differs at %d with 4 threads: %v vs %v", k, i, got[k][i], want[k][i])
		}
	}
}

func TestSerialLayersAllocateNothing(t *testing.T) {
	// A collection empties the gemm packing buffers' pool, which the counts
	// rely on (it flaked once in CI under load).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	r := rng.New(21)
	N, C, V, M := 4, 16, 5, 2
	in, w, b, g := uniform(r, N*C, 1), uniform(r, C*C, 1), uniform(r, C, 1), uniform(r, N*C, 1)
	out, h, mean, rstd := make([]float32, N*C), make([]float32, N*C), make([]float32, N), make([]float32, N)
	din, dw, db := make([]float32, N*C), make([]float32, C*C), make([]float32, C)
	tokens := []int32{0, 1, 4, 1}
	wte, dwte := uniform(r, V*C, 1), make([]float32, V*C)
	B, T, NH := 2, 2, 2
	qkv, dqkv, pre, att := uniform(r, B*T*3*C, 1), make([]float32, B*T*3*C), make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
	dpre, datt := make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
	kv := NewKVCache(B, 2*T+1, C, NH)
	losses, probs, dlogits := make([]float32, N), make([]float32, N*V), make([]float32, N*V)
	params, cache, dparams := uniform(r, N*3*M, 1), make([]float32, MDNCacheLen(N, M)), make([]float32, N*3*M)
	adam := NewAdam(len(w), 1e-3)
	K, D := 3, 2
	pfreq, pw, pb, pfeat, pdfeat := uniform(r, C*K, 1), uniform(r, C*D*2*K, 1), uniform(r, C*D, 1), make([]float32, N*C*2*K), make([]float32, N*C*2*K)
	pout, pdfreq, pdw := make([]float32, N*C*D), make([]float32, C*K), make([]float32, C*D*2*K)
	calls := []func(){
		func() { PLRForward(1, pout, pfeat, in, pfreq, pw, pb, N, C, K, D) },
		func() { PLRBackward(1, din, pdfreq, pdw, pb, pdfeat, pout, pfeat, in, pfreq, pw, N, C, K, D) },
		func() { ReLUInPlace(1, h) },
		func() { ReLUMask(1, din, h) },
		func() { LayerNormForward(1, out, mean, rstd, in, b, b, N, C, 1e-5) },
		func() { LayerNormBackward(1, din, dw[:C], db, g, in, b, mean, rstd, N, C) },
		func() { EmbeddingForward(1, out, tokens, wte, N, C) },
		func() { EmbeddingBackward(1, dwte, g, tokens, N, C) },
		func() { PositionalForward(1, out, wte, 2, 2, C) },
		func() { PositionalBackward(1, dwte, g, 2, 2, C) },
		func() { AttentionForward(1, out, pre, att, qkv, B, T, C, NH) },
		func() { AttentionBackward(1, dqkv, dpre, datt, g, qkv, att, B, T, C, NH) },
		func() { kv.Step(1, out[:B*C], qkv[:B*3*C]) },
		func() { SoftmaxCrossEntropyForward(1, losses, probs, in[:N*V], tokens, nil, N, V) },
		func() { SoftmaxCrossEntropyBackward(1, dlogits, g, probs, tokens, N, V) },
		func() { HistogramNLLForward(1, losses, probs, in[:N*V], tokens, N, V) },
		func() { MSEForward(losses, in, g, N) },
		func() { MSEBackward(din, g, in, g, N) },
		func() { MDNForward(1, losses, cache, params, in, N, M) },
		func() { MDNBackward(1, dparams, g, cache, params, in, N, M) },
		func() { adam.Step(1, w, dw) },
	}
	for i, f := range calls {
		if a := testing.AllocsPerRun(2, f); a != 0 {
			t.Errorf("serial layer call %d: %v allocations", i, a)
		}
	}
	// Linear allocates only what its gemm.Sgemm calls do.
	mm := testing.AllocsPerRun(2, func() { gemm.Sgemm(1, false, true, N, C, C, 1, in, C, w, C, 1, out, C) })
	if a := testing.AllocsPerRun(2, func() { LinearForward(1, out, in, w, b, N, C, C) }); a > mm {
		t.Errorf("LinearForward: %v allocations, its one Sgemm %v", a, mm)
	}
	if a := testing.AllocsPerRun(2, func() { LinearBackward(1, din, dw, db, g, in, w, N, C, C, true, true) }); a > 2*mm {
		t.Errorf("LinearBackward: %v allocations, its two Sgemms %v each", a, mm)
	}
}
