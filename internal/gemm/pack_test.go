package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestPackTrans checks the assembly transposing packer (where this build
// has it) against its definition, for 1 to 4 groups (AVX-512's panels
// have 4) and 1 to 5 blocks, strides wider than the rows, and that it
// writes nothing else.
func TestPackTrans(t *testing.T) {
	if archPackTrans == nil {
		t.Skip("no assembly packing in this build")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for groups := 1; groups <= 4; groups++ {
		for blocks := 1; blocks <= 5; blocks++ {
			lds, ldd := 8*blocks+3, 8*groups+5
			src := make([]float32, 8*groups*lds)
			for i := range src {
				src[i] = rng.Float32()
			}
			dst := make([]float32, 8*blocks*ldd)
			for i := range dst {
				dst[i] = -1
			}
			want := append([]float32(nil), dst...)
			for g := range groups {
				for b := range blocks {
					for i := range 8 {
						for j := range 8 {
							want[(8*b+i)*ldd+8*g+j] = src[(8*g+j)*lds+8*b+i]
						}
					}
				}
			}
			archPackTrans(dst, src, lds, blocks, groups, ldd)
			for i := range dst {
				if dst[i] != want[i] {
					t.Fatalf("groups %d blocks %d: dst[%d] = %v, want %v", groups, blocks, i, dst[i], want[i])
				}
			}
		}
	}
}

// TestPackA6 checks the assembly packer of 6-row tiles (where this build
// has it) against its definition, and that it writes nothing else.
func TestPackA6(t *testing.T) {
	if archPackA6 == nil {
		t.Skip("no assembly packing in this build")
	}
	rng := rand.New(rand.NewPCG(33, 34))
	for blocks := 1; blocks <= 5; blocks++ {
		lda := 8*blocks + 5
		src := make([]float32, 6*lda)
		for i := range src {
			src[i] = rng.Float32()
		}
		dst := make([]float32, 48*blocks+7)
		for i := range dst {
			dst[i] = -1
		}
		want := append([]float32(nil), dst...)
		for p := range 8 * blocks {
			for i := range 6 {
				want[p*6+i] = src[i*lda+p]
			}
		}
		archPackA6(dst, src, lda, blocks)
		for i := range dst {
			if dst[i] != want[i] {
				t.Fatalf("blocks %d: dst[%d] = %v, want %v", blocks, i, dst[i], want[i])
			}
		}
	}
}
