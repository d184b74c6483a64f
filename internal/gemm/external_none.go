//go:build !openblas || !cgo

package gemm

// externalKernels returns no external kernels: this build has none.
func externalKernels(unusable map[string]string) []*kernel {
	unusable["openblas"] = "built without it (build with -tags openblas and cgo)"
	return nil
}
