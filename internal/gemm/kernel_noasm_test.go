//go:build !amd64 || purego || !gc

package gemm

// nativeAsmKernels returns nothing: this build has no assembly.
func nativeAsmKernels() map[string]microFunc { return nil }
