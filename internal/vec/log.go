package vec

import "math"

// Log is math.Log, right for subnormal x as well: Go's amd64 assembly
// math.Log is not (golang/go#56600: math.Log(5e-324) is -709.09, not
// -744.44, a subnormal taken as the smallest normal number), and the
// widths of a tokenization's smallest cells, or the probabilities and
// weights of distant cells and components, can be subnormal.
func Log(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}
