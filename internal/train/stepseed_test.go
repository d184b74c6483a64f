package train

import "testing"

// TestStepSeed: the dropout seeds of seeds 0..7, epochs 1..50 and batches
// 0..99 are all distinct (an ensemble's members take seeds s, s+1, ...:
// with seed ^ epoch<<32 ^ k, member m's seeds were member 0's with the
// batches swapped, k^m).
func TestStepSeed(t *testing.T) {
	seen := map[uint64][3]int{}
	for s := range 8 {
		for e := 1; e <= 50; e++ {
			for k := range 100 {
				z := stepSeed(uint64(s), e, k)
				if o, ok := seen[z]; ok {
					t.Fatalf("stepSeed(%d, %d, %d) = stepSeed(%d, %d, %d)", s, e, k, o[0], o[1], o[2])
				}
				seen[z] = [3]int{s, e, k}
			}
		}
	}
}
