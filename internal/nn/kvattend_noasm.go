//go:build !amd64 || !gc || purego

package nn

// kvAttendVec is false: this build has no vector kernels.
func kvAttendVec(hs int) bool { return false }

func kvScores(s, q []float32, k *[8]*float32, hs int) { panic("nn: kvScores without a vector kernel") }

func kvValues(o, a []float32, v *[8]*float32, hs int, accum bool) {
	panic("nn: kvValues without a vector kernel")
}
