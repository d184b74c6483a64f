//go:build !amd64 || !gc || purego

package nn

func expVec(x []float64) int { return 0 }
