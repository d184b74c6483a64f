package dist

import (
	"math"
	"slices"
	"testing"
)

// The golden values of these tests are mpmath's at 40 digits: the normal
// quantile sqrt(2) erfinv(2q - 1), the mixtures' quantiles by bisection
// on their CDF, and the recalibrated CRPS by tanh-sinh quadrature on the
// pieces between the components' scales and the map's kink.

// TestMDNNarrowQuantile: an MDN's quantiles are exact to a small part of
// a narrow component's sd (a component of sd 1e-12 was cut at a fifth of
// its sd, one of 1e-13 at a quarter: the stop was 1e-12 absolute).
func TestMDNNarrowQuantile(t *testing.T) {
	z := map[float64]float64{0.1: -1.281551565544600467, 1e-10: -6.3613409024040562047, 0.999: 3.0902323061678135415, 0.9999999999999999: 8.2095361516013868556}
	for _, sd := range []float64{1, 1e-10, 1e-12, 1e-13, 1e-200} {
		d := NewMDN([]float64{1}, []float64{0}, []float64{sd}, Affine{0, 1})
		for q, zq := range z {
			if got := d.Quantile(q) / sd; math.Abs(got-zq) > 1e-9*math.Abs(zq) {
				t.Errorf("sd %g: Quantile(%g)/sd = %.15g, want %.15g", sd, q, got, zq)
			}
		}
	}
	// Far from 0, to a few of the float64s near the mean (their spacing
	// at 1137 is 2.3e-13, a quarter of a thousandth of the sd).
	const mu, sd = 1137.0, 1e-9
	d := NewMDN([]float64{1}, []float64{mu}, []float64{sd}, Affine{0, 1})
	ulp := math.Nextafter(mu, 2*mu) - mu
	for q, zq := range z {
		if got := d.Quantile(q); math.Abs(got-(mu+zq*sd)) > 8*ulp {
			t.Errorf("mean %g, sd %g: Quantile(%g) = %.17g, want %.17g", mu, sd, q, got, mu+zq*sd)
		}
	}
}

// TestMDNCDFReachesOne: beyond every component an MDN's CDF is 1, and
// below them its survival 1, though its weights sum to 1 - 2^-53 once
// rounded.
func TestMDNCDFReachesOne(t *testing.T) {
	d := NewMDN([]float64{0.5242328528033507, 0.9732656693824064, 0.5751830014519272, 0.6795432222750074},
		[]float64{0.05, 0.86, -4.04, 0.14}, []float64{0.26, 0.1, 0.017, 0.2}, Affine{-3, 7})
	for _, y := range []float64{math.Inf(1), 1e300, 1e6} {
		if f := d.CDF(y); f != 1 {
			t.Errorf("CDF(%g) = %.17g, want 1", y, f)
		}
	}
	if f := d.CDF(math.Inf(-1)); f != 0 {
		t.Errorf("CDF(-Inf) = %v", f)
	}
	if s := d.sfT(math.Inf(-1)); s != 1 {
		t.Errorf("survival at -Inf %.17g, want 1", s)
	}
	if f := NewMixture([]Distribution{d}).CDF(1e6); f != 1 {
		t.Errorf("a mixture of it: CDF(1e6) = %.17g, want 1", f)
	}
}

// TestMixtureTailQuantiles: a mixture's quantiles at tiny levels are
// exact to the level's own scale (the level 1e-20 took a point whose CDF
// is 5e-21: an absolute 1e-13 was close enough), and stay monotone in the
// level.
func TestMixtureTailQuantiles(t *testing.T) {
	m := NewMixture([]Distribution{
		NewMDN([]float64{1}, []float64{0}, []float64{1}, Affine{0, 1}),
		NewMDN([]float64{1}, []float64{5}, []float64{1}, Affine{0, 1}),
	})
	for q, want := range map[float64]float64{1e-20: -9.1880572495020786641, 1e-300: -37.028395296325460603} {
		got := m.Quantile(q)
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("Quantile(%g) = %.17g, want %.17g", q, got, want)
		}
		if f := m.CDF(got); math.Abs(f-q) > 1e-6*q {
			t.Errorf("CDF at Quantile(%g) = %g", q, f)
		}
	}
	levels := []float64{1e-300, 1e-200, 1e-100, 1e-50, 1e-20, 1e-16, 1e-10, 1e-5, 0.01, 0.5, 0.99}
	qs := m.Quantiles(levels)
	if !slices.IsSorted(qs) {
		t.Errorf("quantiles not monotone in the level: %v", qs)
	}
	for i, q := range levels {
		if one := m.Quantile(q); one != qs[i] {
			t.Errorf("Quantile(%g) = %v, Quantiles gives %v", q, one, qs[i])
		}
	}
}

// TestRecalInverseInside: a map's inverse is inside (0, 1) for every
// level inside, so a recalibrated MDN's quantile just below 1 is finite
// (it was the base's at 1, +Inf: Sample could draw +Inf).
func TestRecalInverseInside(t *testing.T) {
	rc, err := NewRecalibration([]float64{0, 0.8333333333333334, 1}, []float64{0, 0.7595873376738241, 1})
	if err != nil {
		t.Fatal(err)
	}
	d := NewRecalibrated(NewMDN([]float64{1}, []float64{0}, []float64{1}, Affine{0, 1}), rc)
	for _, q := range []float64{1 - 0x1p-53, math.Nextafter(1, 0), 5e-324, 1e-310} {
		if p := rc.Inverse(q); !(p > 0 && p < 1) {
			t.Errorf("Inverse(%g) = %v, want inside (0, 1)", q, p)
		}
		if x := d.Quantile(q); math.IsInf(x, 0) || math.IsNaN(x) {
			t.Errorf("Quantile(%g) = %v, want a number", q, x)
		}
	}
	if rc.Inverse(1) != 1 || rc.Inverse(0) != 0 {
		t.Errorf("Inverse(1) = %v, Inverse(0) = %v", rc.Inverse(1), rc.Inverse(0))
	}
}

// TestRecalibratedCRPSNarrow: the CRPS of a recalibrated MDN with a narrow
// component is exact within its bound (the quadrature's panels fell
// between a component of sd 0.01 and gave 13.8068 with a bound of 1e-10,
// where the closed form is 13.7881): under the identity map against the
// MDN's closed form, under another against mpmath.
func TestRecalibratedCRPSNarrow(t *testing.T) {
	id, err := NewRecalibration([]float64{0, 1}, []float64{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ w, mu, sd []float64 }{
		{[]float64{0.5, 0.5}, []float64{0, 50}, []float64{5, 0.01}},
		{[]float64{0.5, 0.5}, []float64{0, 50}, []float64{5, 1e-9}},
		{[]float64{0.3, 0.6, 0.1}, []float64{0, 133.9, -110.9}, []float64{6, 0.0036, 0.0009}},
	} {
		m := NewMDN(c.w, c.mu, c.sd, Affine{0, 1})
		for _, y := range []float64{0, 10, 50, 60} {
			got, bound := CRPS(NewRecalibrated(m, id), y)
			want, _ := CRPS(m, y)
			if math.Abs(got-want) > max(bound, 1e-12*want) {
				t.Errorf("%v at %g: %.15g (bound %.2g), closed form %.15g", c, y, got, bound, want)
			}
		}
	}
	rc, err := NewRecalibration([]float64{0, 0.3, 1}, []float64{0, 0.5, 1})
	if err != nil {
		t.Fatal(err)
	}
	d := NewRecalibrated(NewMDN([]float64{0.5, 0.5}, []float64{0, 50}, []float64{5, 0.01}, Affine{0, 1}), rc)
	for y, want := range map[float64]float64{0: 7.3983021043176288414, 50.005: 20.205636569224558496, 60: 30.199223736671692025} {
		got, bound := CRPS(d, y)
		if math.Abs(got-want) > max(bound, 1e-12*want) || bound > 1e-9*want {
			t.Errorf("at %g: %.17g (bound %.2g), want %.17g", y, got, bound, want)
		}
	}
}

// TestMDNQuantileNoBounce: Newton's steps bounced across a component's
// edge between 0.76 and 0.94 for 1,100 steps, and the median returned had
// a CDF of 0.49978, above the quantile at the next level down
// (helper-153); now a step that does not shrink is a bisection.
func TestMDNQuantileNoBounce(t *testing.T) {
	d := NewMDN(
		[]float64{0.1876002759062727, 0.10253731537009084, 0.1485028362090068, 0.2801425230432167, 0.15730958853726754, 0.1239074609341455},
		[]float64{0.8938838629453062, 0.3485413890450597, 0.5415544128859785, 0.9975883464559828, 0.8767610627648251, 0.10425717727514805},
		[]float64{0.017344432793668593, 0.09915141918548559, 0.1838343942730247, 0.10873939342364919, 0.15895091971812686, 0.06663709632134478},
		Affine{0, 1})
	prev := math.Inf(-1)
	for _, q := range []float64{0.4999999, 0.49999999999999994, 0.5, 0.5000000000000001, 0.5000001} {
		x := d.Quantile(q)
		if f := d.CDF(x); math.Abs(f-q) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, where the CDF is %v", q, x, f)
		}
		if x < prev {
			t.Errorf("Quantile(%v) = %v, below the quantile at a lower level (%v)", q, x, prev)
		}
		prev = x
	}
}
