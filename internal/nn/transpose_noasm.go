//go:build !amd64 || !gc || purego

package nn

func transposeVec(dst []float32, ldd int, src []float32, lds, rows, cols int) bool { return false }
