//go:build !amd64 || purego || !gc

package gemm

// archPackTrans is nil: this build has no assembly packing.
var archPackTrans func(dst, src []float32, lds, blocks, groups, ldd int)
