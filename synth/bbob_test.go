package synth

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

type bbobGolden struct {
	Source string `json:"source"`
	Seed   int    `json:"seed"`
	Python string `json:"python"`
	Numpy  string `json:"numpy"`
	Cases  []struct {
		Dim    int                `json:"dim"`
		Label  string             `json:"label"`
		X      []float64          `json:"x"`
		Values map[string]float64 `json:"values"`
	} `json:"cases"`
}

func mustBBOB(t testing.TB, name string, dim int) *BBOB {
	t.Helper()
	f, err := NewBBOB(name, dim)
	if err != nil {
		t.Fatalf("NewBBOB(%q, %d): %v", name, dim, err)
	}
	return f
}

// bbobClose reports whether got matches want to 1e-9 relative, or 1e-12
// absolute near 0.
func bbobClose(got, want float64) bool {
	d := math.Abs(got - want)
	return d <= 1e-12 || d <= 1e-9*math.Abs(want)
}

func TestBBOBGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "bbob", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g bbobGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if g.Seed != 0 || len(g.Cases) == 0 {
		t.Fatalf("golden: seed %d, %d cases", g.Seed, len(g.Cases))
	}
	names := BBOBNames()
	checked := map[string]int{}
	dims := map[int]bool{}
	worst, worstWhat, exact, total := 0.0, "", 0, 0
	for _, c := range g.Cases {
		if len(c.X) != c.Dim {
			t.Fatalf("golden case %d/%s: len(x) = %d", c.Dim, c.Label, len(c.X))
		}
		dims[c.Dim] = true
		for _, name := range names {
			want, ok := c.Values[name]
			f, err := NewBBOB(name, c.Dim)
			if !ok {
				// The generator leaves out exactly what NewBBOB rejects.
				if err == nil {
					t.Errorf("golden has no %s at dim %d, but NewBBOB accepts it", name, c.Dim)
				}
				continue
			}
			if err != nil {
				t.Errorf("NewBBOB(%s, %d): %v", name, c.Dim, err)
				continue
			}
			x := slices.Clone(c.X)
			got := f.Eval(x)
			if !slices.Equal(x, c.X) {
				t.Errorf("%s modified its argument", name)
			}
			total++
			if got == want {
				exact++
			} else if rel := math.Abs(got-want) / math.Max(math.Abs(want), 1e-300); rel > worst {
				worst, worstWhat = rel, name+" "+c.Label
			}
			if !bbobClose(got, want) {
				t.Errorf("%s dim %d %s: got %.17g, vizier %.17g (rel err %.3g)",
					name, c.Dim, c.Label, got, want, math.Abs(got-want)/math.Abs(want))
			}
			checked[name]++
		}
	}
	t.Logf("golden (python %s, numpy %s): %d values, %d bit-identical, worst relative difference %.3g (%s)",
		g.Python, g.Numpy, total, exact, worst, worstWhat)
	for _, d := range []int{2, 3, 5, 10, 20} {
		if !dims[d] {
			t.Errorf("golden lacks dim %d", d)
		}
	}
	for _, name := range names {
		if checked[name] < 5*9 {
			t.Errorf("%s: only %d golden values", name, checked[name])
		}
	}
}

func TestBBOBNamesAndErrors(t *testing.T) {
	want := []string{"Sphere", "Ellipsoidal", "Rastrigin", "BuecheRastrigin", "LinearSlope",
		"AttractiveSector", "StepEllipsoidal", "RosenbrockRotated", "Discus", "BentCigar",
		"SharpRidge", "DifferentPowers", "Weierstrass", "SchaffersF7",
		"SchaffersF7IllConditioned", "GriewankRosenbrock", "Schwefel", "Katsuura", "Lunacek",
		"Gallagher101Me", "Gallagher21Me", "NegativeSphere", "NegativeMinDifference",
		"FonsecaFleming"}
	got := BBOBNames()
	if !slices.Equal(got, want) {
		t.Fatalf("BBOBNames() = %v", got)
	}
	got[0] = "changed"
	if BBOBNames()[0] != "Sphere" {
		t.Fatal("BBOBNames does not return a fresh slice")
	}
	for _, name := range want {
		if BBOBDescription(name) == "" {
			t.Errorf("no description for %s", name)
		}
		f := mustBBOB(t, name, 2)
		if f.Name() != name || f.Dim() != 2 {
			t.Errorf("%s: Name %q Dim %d", name, f.Name(), f.Dim())
		}
		for _, d := range []int{0, -1, MaxBBOBDim + 1} {
			if _, err := NewBBOB(name, d); err == nil {
				t.Errorf("NewBBOB(%s, %d) accepted", name, d)
			}
		}
		if _, err := NewBBOB(name, MaxBBOBDim); err != nil {
			t.Errorf("NewBBOB(%s, %d): %v", name, MaxBBOBDim, err)
		}
	}
	if BBOBDescription("sphere") != "" || BBOBDescription("") != "" {
		t.Error("description for an unknown name")
	}
	for _, name := range []string{"", "sphere", "Sphere ", "F1", "Gallagher101"} {
		_, err := NewBBOB(name, 3)
		if err == nil || !strings.Contains(err.Error(), "unknown") {
			t.Errorf("NewBBOB(%q): err %v", name, err)
		}
	}
	_, err := NewBBOB("Sphere", MaxBBOBDim+1)
	if err == nil || !strings.Contains(err.Error(), "1000") {
		t.Errorf("dim cap error %v does not name the limit", err)
	}
	needs2 := []string{"RosenbrockRotated", "SchaffersF7", "SchaffersF7IllConditioned",
		"GriewankRosenbrock", "NegativeMinDifference", "Lunacek"}
	for _, name := range want {
		_, err := NewBBOB(name, 1)
		if slices.Contains(needs2, name) {
			if err == nil || !strings.Contains(err.Error(), ">= 2") {
				t.Errorf("NewBBOB(%s, 1): err %v, want one naming dim >= 2", name, err)
			}
		} else if err != nil {
			t.Errorf("NewBBOB(%s, 1): %v", name, err)
		}
	}
	_, err = NewBBOB("Sphere", 0)
	if err == nil || !strings.Contains(err.Error(), ">= 1") {
		t.Errorf("NewBBOB(Sphere, 0): err %v does not name the limit", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Eval with a wrong length did not panic")
			}
		}()
		mustBBOB(t, "Sphere", 3).Eval([]float64{1, 2})
	}()
}

// TestBBOBHandChecks checks values computed by hand from vizier's definitions,
// independent of the golden file.
func TestBBOBHandChecks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{2, 3, 7, 20} {
		ev := func(name string, x []float64) float64 { return mustBBOB(t, name, d).Eval(x) }
		near := func(what string, got, want, tol float64) {
			t.Helper()
			if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
				t.Errorf("dim %d %s: got %.17g, want %.17g", d, what, got, want)
			}
		}
		fill := func(v float64) []float64 {
			x := make([]float64, d)
			for i := range x {
				x[i] = v
			}
			return x
		}
		zero := fill(0)
		for k := 0; k < 20; k++ {
			x := make([]float64, d)
			for i := range x {
				x[i] = 10*r.Float64() - 5
			}
			ss := 0.0
			for _, v := range x {
				ss += v * v
			}
			near("Sphere", ev("Sphere", x), ss, 1e-14)
			near("FonsecaFleming", ev("FonsecaFleming", x), 1-math.Exp(-ss), 1e-14)
			near("NegativeSphere", ev("NegativeSphere", x), 100+ss-2*x[0]*x[0], 1e-13)
			// LinearSlope is linear, unclipped: Σ 10^(i/(D-1)) (5 - x_i).
			ls := 0.0
			for i, v := range x {
				ls += math.Pow(10, float64(i)/float64(d-1)) * (5 - v)
			}
			near("LinearSlope", ev("LinearSlope", x), ls, 1e-13)
			// DifferentPowers with identity rotation.
			dp := 0.0
			for i, v := range x {
				dp += math.Pow(math.Abs(v), 2+4*float64(i)/float64(d-1))
			}
			near("DifferentPowers", ev("DifferentPowers", x), math.Sqrt(dp), 1e-13)
			md := math.Inf(1)
			for i := 0; i+1 < d; i++ {
				md = math.Min(md, x[i+1]-x[i])
			}
			sx := 0.0
			for _, v := range x {
				sx += v
			}
			near("NegativeMinDifference", ev("NegativeMinDifference", x), 10-md+1e-8*sx, 1e-13)
			// Inside the box the penalty-free functions are >= their optimum.
			for _, name := range BBOBNames() {
				v := ev(name, x)
				switch name {
				case "LinearSlope", "NegativeMinDifference", "Schwefel":
				case "NegativeSphere":
					if v < 75-1e-9 {
						t.Errorf("dim %d NegativeSphere %g < 75 inside the box", d, v)
					}
				default:
					if v < 0 {
						t.Errorf("dim %d %s(%v) = %g < 0", d, name, x, v)
					}
				}
			}
		}
		// LinearSlope: 0 at the corner (5,...,5), 10·Σ10^(i/(D-1)) at (-5,...,-5).
		near("LinearSlope(5)", ev("LinearSlope", fill(5)), 0, 1e-15)
		sw := 0.0
		for i := 0; i < d; i++ {
			sw += math.Pow(10, float64(i)/float64(d-1))
		}
		near("LinearSlope(-5)", ev("LinearSlope", fill(-5)), 10*sw, 1e-13)
		near("LinearSlope(0)", ev("LinearSlope", zero), 5*sw, 1e-13)
		// Sphere at the corner; NegativeSphere at (5,0,...,0) is its box minimum 75.
		near("Sphere(5)", ev("Sphere", fill(5)), 25*float64(d), 0)
		e5 := make([]float64, d)
		e5[0] = 5
		near("NegativeSphere(5,0..)", ev("NegativeSphere", e5), 75, 0)
		near("NegativeSphere(0)", ev("NegativeSphere", zero), 100, 0)
		near("NegativeMinDifference(0)", ev("NegativeMinDifference", zero), 10, 0)
		// Optimum 0 at the origin.
		for _, name := range []string{"Sphere", "Ellipsoidal", "Rastrigin", "BuecheRastrigin",
			"StepEllipsoidal", "Discus", "BentCigar", "SharpRidge", "DifferentPowers",
			"Weierstrass", "SchaffersF7", "SchaffersF7IllConditioned", "GriewankRosenbrock",
			"Katsuura", "Gallagher101Me", "Gallagher21Me", "FonsecaFleming"} {
			near(name+"(0)", ev(name, zero), 0, 1e-12)
		}
		// RosenbrockRotated: z = max(1, sqrt(D)/8)·x + 0.5, optimum at z = 1;
		// at the origin every pair gives 100·(0.25-0.5)² + 0.25 = 6.5.
		c := math.Max(1, math.Sqrt(float64(d))/8)
		near("RosenbrockRotated(opt)", ev("RosenbrockRotated", fill(0.5/c)), 0, 0)
		near("RosenbrockRotated(0)", ev("RosenbrockRotated", zero), 6.5*float64(d-1), 1e-15)
		// AttractiveSector: 0 at x_opt = (1,-1,1,...).
		xo := make([]float64, d)
		for i := range xo {
			xo[i] = 1 - 2*float64(i%2)
		}
		near("AttractiveSector(opt)", ev("AttractiveSector", xo), 0, 0)
		// Lunacek: 0 at x_i = mu0/2 = 1.25 (x_hat = mu0, z = 0).
		near("Lunacek(opt)", ev("Lunacek", fill(1.25)), 0, 1e-12)
		// At the origin: min(D·6.25, D + s·D·mu1²) + 10·(D - Σcos(2π·λ_i·(-2.5))).
		// Schwefel: near 0 at x_opt = 4.2096874633/2·(-1,1,-1,...), the
		// constant 4.189828872724339 being 418.98.../100.
		xs := make([]float64, d)
		for i := range xs {
			xs[i] = 4.2096874633 / 2 * (2*float64(i%2) - 1)
		}
		vs := ev("Schwefel", xs)
		near("Schwefel(opt)", vs, 0, 1e-8)
		for k := 0; k < 50; k++ {
			x := make([]float64, d)
			for i := range x {
				x[i] = 10*r.Float64() - 5
			}
			if v := ev("Schwefel", x); v < vs {
				t.Errorf("dim %d Schwefel(%v) = %g < value at x_opt %g", d, x, v, vs)
			}
		}
		// GriewankRosenbrock: z = c·x + 1; at the origin each s_i is 0, so the
		// value is 10·(-(D-1))/(D-1) + 10 = 0 (checked above); StepEllipsoidal
		// is 0.1·|x_0|/1000 on the plateau around the origin.
		small := fill(0)
		small[0] = 0.01
		near("StepEllipsoidal(plateau)", ev("StepEllipsoidal", small), 0.1*0.01/1000, 1e-15)
		// Penalties: outside the box, Fpen adds Σ(|x_i|-5)².
		bx := fill(0)
		bx[0] = -7 // x_0 < 0: Tosz(-7)·10^0, penalty 100·4
		tz := tosz(-7)
		near("BuecheRastrigin(-7,0..)", ev("BuecheRastrigin", bx), 10*(1-math.Cos(2*math.Pi*tz))+tz*tz+400, 1e-13)
	}
	// Tosz: 0 at 0, odd-sign, identity at ±1 (log 1 = 0).
	if tosz(0) != 0 || tosz(1) != 1 || tosz(-1) != -1 {
		t.Errorf("tosz(0, 1, -1) = %g %g %g", tosz(0), tosz(1), tosz(-1))
	}
	// Ellipsoidal in 2-D: Tosz(x_0)² + 1e6·Tosz(x_1)².
	x := []float64{0.3, -0.7}
	want := tosz(0.3)*tosz(0.3) + 1e6*tosz(-0.7)*tosz(-0.7)
	if got := mustBBOB(t, "Ellipsoidal", 2).Eval(x); !(math.Abs(got-want) <= 1e-9*want) {
		t.Errorf("Ellipsoidal(%v) = %g, want %g", x, got, want)
	}
	// Gallagher: the peaks other than the origin's are at most 9.1 < 10, so
	// the value is Tosz(10 - max)² > 0 away from the origin.
	for _, name := range []string{"Gallagher101Me", "Gallagher21Me"} {
		f := mustBBOB(t, name, 4)
		if v := f.Eval([]float64{1, 1, 1, 1}); !(v > 0) {
			t.Errorf("%s away from the origin = %g", name, v)
		}
	}
	// D = 1 branches (vizier's "if dim > 1 else" values).
	if got := mustBBOB(t, "LinearSlope", 1).Eval([]float64{0}); got != 50 {
		t.Errorf("LinearSlope 1-D at 0 = %g, want 10·5", got)
	}
	if got := mustBBOB(t, "DifferentPowers", 1).Eval([]float64{2}); !(math.Abs(got-8) <= 1e-12) {
		t.Errorf("DifferentPowers 1-D at 2 = %g, want sqrt(2^6)", got)
	}
}

func TestBBOBFinite(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{2, 5, 20} {
		fs := make([]*BBOB, 0, 24)
		for _, name := range BBOBNames() {
			fs = append(fs, mustBBOB(t, name, d))
		}
		x := make([]float64, d)
		for k := 0; k < 10000; k++ {
			for i := range x {
				x[i] = 10*r.Float64() - 5
			}
			for _, f := range fs {
				if v := f.Eval(x); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s(%v) = %g", f.Name(), x, v)
				}
			}
		}
	}
	// Far outside the box the values stay finite too.
	for _, name := range BBOBNames() {
		f := mustBBOB(t, name, 5)
		for _, v := range []float64{-1e3, -50, 50, 1e3} {
			x := []float64{v, -v / 2, v / 3, 0, 1}
			if y := f.Eval(x); math.IsNaN(y) || math.IsInf(y, 0) {
				t.Errorf("%s(%v) = %g", name, x, y)
			}
		}
	}
}

func TestBBOBConcurrent(t *testing.T) {
	fs := make([]*BBOB, 0, 24)
	for _, name := range BBOBNames() {
		fs = append(fs, mustBBOB(t, name, 6))
	}
	x := []float64{0.3, -1.2, 4.4, -3.1, 2.2, 0.9}
	want := make([]float64, len(fs))
	for i, f := range fs {
		want[i] = f.Eval(x)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 50; k++ {
				for i, f := range fs {
					if v := f.Eval(x); v != want[i] {
						t.Errorf("%s: concurrent Eval %g != %g", f.Name(), v, want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestNPSumPairwise(t *testing.T) {
	// numpy's pairwise sum: below 8 terms left to right; up to 128 eight
	// accumulators; above, halves at a multiple of 8.
	for _, n := range []int{0, 1, 7, 8, 9, 16, 127, 128, 129, 300, 1000} {
		a := make([]float64, n)
		exact := 0.0
		for i := range a {
			a[i] = float64(i%13) + 0.5
			exact += a[i]
		}
		if got := npSum(a); got != exact {
			t.Errorf("npSum of %d terms = %g, want %g", n, got, exact)
		}
	}
	// Order check: [1e16, 1, 1, ..., -1e16] pairs differently than a loop.
	a := []float64{1e16, 1, 1, 1, 1, 1, 1, 1, 1, -1e16}
	// r0 = 1e16 + 1 = 1e16 (rounding), r1..r7 = 1, then +1 (i=8), -1e16 (i=9).
	want := ((1e16 + 1.0) + (1.0 + 1.0)) + ((1.0 + 1.0) + (1.0 + 1.0))
	want += 1
	want += -1e16
	if got := npSum(a); got != want {
		t.Errorf("npSum order: got %g, want %g", got, want)
	}
}
