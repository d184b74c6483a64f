package vocab

import (
	"math/rand/v2"
	"testing"
)

func benchValues(n int, scale float64) []float64 {
	r := rand.New(rand.NewPCG(1, 1))
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64() * scale
	}
	return v
}

func benchEncode(b *testing.B, spec string, scale float64) {
	tok, err := Parse(spec)
	if err != nil {
		b.Fatal(err)
	}
	vs := benchValues(1024, scale)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, _, err := tok.Encode(vs[i%len(vs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDecode(b *testing.B, spec string, scale float64) {
	tok, err := Parse(spec)
	if err != nil {
		b.Fatal(err)
	}
	var seqs [][]int
	for _, v := range benchValues(1024, scale) {
		s, _, _ := tok.Encode(v)
		seqs = append(seqs, s)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := tok.Decode(seqs[i%len(seqs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeNormalizedB10K4(b *testing.B) { benchEncode(b, "normalized:base=10,length=4", 1) }
func BenchmarkEncodeNormalizedB2K64(b *testing.B) { benchEncode(b, "normalized:base=2,length=64", 1) }
func BenchmarkEncodeUnnormalizedB10E2M4(b *testing.B) {
	benchEncode(b, "unnormalized:base=10,exponent=2,mantissa=4", 1e6)
}
func BenchmarkEncodeUnnormalizedB10E3M17(b *testing.B) {
	benchEncode(b, "unnormalized:base=10,exponent=3,mantissa=17", 1e6)
}
func BenchmarkDecodeNormalizedB10K4(b *testing.B) { benchDecode(b, "normalized:base=10,length=4", 1) }
func BenchmarkDecodeNormalizedB2K64(b *testing.B) { benchDecode(b, "normalized:base=2,length=64", 1) }
func BenchmarkDecodeUnnormalizedB10E2M4(b *testing.B) {
	benchDecode(b, "unnormalized:base=10,exponent=2,mantissa=4", 1e6)
}
func BenchmarkDecodeUnnormalizedB10E3M17(b *testing.B) {
	benchDecode(b, "unnormalized:base=10,exponent=3,mantissa=17", 1e6)
}
func BenchmarkDecodeHammingL16(b *testing.B) { benchDecode(b, "hamming:length=16", 1) }
