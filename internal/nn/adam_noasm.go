//go:build !amd64 || !gc || purego

package nn

// adamVec has no vector code in this build: it updates nothing.
func adamVec(k *adamStep, p, g, m, v []float32) int { return 0 }
