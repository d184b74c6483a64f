//go:build amd64 && gc && !purego

package nn

//go:noescape
func kvScoresAVX2(s, q *float32, k *[8]*float32, hs int)

//go:noescape
func kvValuesAVX2(o, a *float32, v *[8]*float32, cnt, hs int, accum bool)

// kvAttendVec reports whether kvScores and kvValues have a vector kernel
// for heads of width hs: AVX2, and hs a positive multiple of 8.
func kvAttendVec(hs int) bool { return useAVX2 && hs > 0 && hs%8 == 0 }

// kvScores sets s[j] = q·(*k[j])[:hs] for j < 8 with gemm.Direct's
// arithmetic (see kvScoresAVX2); kvAttendVec(hs) must hold, len(s) >= 8,
// len(q) >= hs and every k[j] must point at hs floats.
func kvScores(s, q []float32, k *[8]*float32, hs int) {
	_, _ = s[7], q[hs-1]
	kvScoresAVX2(&s[0], &q[0], k, hs)
}

// kvValues adds a[j] * (*v[j])[:hs] for j < len(a) (1 to 8) to o[:hs]
// (accum) or sets o[:hs] to that sum, with gemm.Direct's arithmetic (see
// kvValuesAVX2); kvAttendVec(hs) must hold and every v[j], j < len(a),
// must point at hs floats.
func kvValues(o, a []float32, v *[8]*float32, hs int, accum bool) {
	if len(a) < 1 || len(a) > 8 {
		panic("nn: kvValues of 0 or more than 8 positions")
	}
	_ = o[hs-1]
	kvValuesAVX2(&o[0], &a[0], v, len(a), hs, accum)
}
