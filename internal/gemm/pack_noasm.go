//go:build !amd64 || purego || !gc

package gemm

// archPackTrans is nil: this build has no assembly packing.
var archPackTrans func(dst, src []float32, lds, blocks, groups, ldd int)

// archPackA6 is nil: this build has no assembly packing.
var archPackA6 func(dst, src []float32, lda, blocks int)
