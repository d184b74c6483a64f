//go:build !openblas || !cgo

package gemm

// externalKernels returns no external kernels: this build has none.
func externalKernels(unusable map[string]string) []*kernel {
	unusable["openblas"] = "built without it (build with -tags openblas and cgo)"
	return nil
}

// OpenBLASCore returns the name of the kernels OpenBLAS chose
// (openblas_get_corename), or "" when this build has no OpenBLAS.
func OpenBLASCore() string { return "" }
