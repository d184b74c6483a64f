//go:build !amd64 || !gc || purego

package vec

func expVec(x []float64) int { return 0 }
