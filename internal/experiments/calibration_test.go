package experiments

import (
	"math"
	"testing"
)

// The calibration summary recomputed by hand from a small journal: means
// over a dataset's splits first, then over datasets; failed runs left out.
func TestSummarizeCalibration(t *testing.T) {
	line := func(ds string, split int, head string, t float64, covB, covA, nllB, nllA, crpsB, crpsA float64) *CalibrationLine {
		return &CalibrationLine{Dataset: ds, Split: split, Head: head, Temperature: Float(t),
			Before: CalScores{NLL: Float(nllB), CRPS: Float(crpsB), PITError: 0.1, Coverage: map[string]Float{"0.9": Float(covB), "0.5": 0.5}},
			After:  CalScores{NLL: Float(nllA), CRPS: Float(crpsA), PITError: 0.05, Coverage: map[string]Float{"0.9": Float(covA), "0.5": 0.5}}}
	}
	lines := []*CalibrationLine{
		// a: splits average to cov 0.80 -> 0.90, nll 2 -> 1.5, crps 1 -> 0.9
		line("a", 0, DecoderNormalized, 1.5, 0.78, 0.88, 2.5, 2.0, 1.2, 1.0),
		line("a", 1, DecoderNormalized, 1.5, 0.82, 0.92, 1.5, 1.0, 0.8, 0.8),
		// b: cov 0.90 -> 0.97, nll 1 -> 1.2, crps 2 -> 2
		line("b", 0, DecoderNormalized, 0.8, 0.90, 0.97, 1.0, 1.2, 2.0, 2.0),
		{Dataset: "c", Head: DecoderNormalized, Error: "diverged"},
		line("a", 0, MDN, 1, 0.9, 0.9, 1, 1, 1, 1),
	}
	s := SummarizeCalibration(lines)
	if len(s) != 2 || s[0].Head != DecoderNormalized || s[1].Head != MDN {
		t.Fatalf("summary %+v", s)
	}
	d := s[0]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if d.Datasets != 2 || d.InBandBefore != 1 || d.InBandAft != 1 || d.LowerNLL != 1 ||
		!near(d.Cov90Before, 0.85) || !near(d.Cov90After, 0.935) || !near(d.NLLBefore, 1.5) || !near(d.NLLAfter, 1.35) /* medians of two */ ||
		!near(d.CRPSRelChange, (-0.1+0)/2) || !near(d.PITBefore, 0.1) || !near(d.PITAfter, 0.05) {
		t.Errorf("decoder summary %+v", d)
	}
}
