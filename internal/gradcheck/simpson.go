package gradcheck

// Simpson integrates f over [a, b] by the composite Simpson rule with n
// (even) panels: the numerical reference of tests that check densities,
// CDFs and means against closed forms.
func Simpson(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}
