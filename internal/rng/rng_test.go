package rng

import (
	"math"
	"math/big"
	"testing"
)

// refPCG is an independent PCG-DXSM written with math/big from the published
// description (128-bit LCG state*mul+inc, DXSM output of (hi, lo)), so that
// a change of the stdlib generator fails this test.
type refPCG struct{ state *big.Int }

var (
	two64  = new(big.Int).Lsh(big.NewInt(1), 64)
	two128 = new(big.Int).Lsh(big.NewInt(1), 128)
)

func u128(hi, lo uint64) *big.Int {
	x := new(big.Int).SetUint64(hi)
	x.Mul(x, two64)
	return x.Add(x, new(big.Int).SetUint64(lo))
}

func (p *refPCG) next() uint64 {
	mul := u128(2549297995355413924, 4865540595714422341)
	inc := u128(6364136223846793005, 1442695040888963407)
	p.state.Mul(p.state, mul)
	p.state.Add(p.state, inc)
	p.state.Mod(p.state, two128)
	hiB := new(big.Int).Rsh(p.state, 64)
	loB := new(big.Int).Mod(p.state, two64)
	hi, lo := hiB.Uint64(), loB.Uint64()
	mask := new(big.Int).Sub(two64, big.NewInt(1))
	mulmod := func(a, b uint64) uint64 {
		x := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
		return x.And(x, mask).Uint64()
	}
	hi ^= hi >> 32
	hi = mulmod(hi, 0xda942042e4dd58b5)
	hi ^= hi >> 48
	return mulmod(hi, lo|1)
}

func TestStreamMatchesReference(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1<<64 - 1} {
		r := New(seed)
		ref := &refPCG{u128(seed, 0x9e3779b97f4a7c15)}
		for i := 0; i < 50; i++ {
			if got, want := r.Uint64(), ref.next(); got != want {
				t.Fatalf("seed %d draw %d: Uint64 = %#x, reference %#x", seed, i, got, want)
			}
		}
	}
}

func TestDerivedFormulas(t *testing.T) {
	r := New(7)
	ref := &refPCG{u128(7, 0x9e3779b97f4a7c15)}
	for i := 0; i < 20; i++ {
		u := ref.next()
		want := new(big.Float).SetMantExp(new(big.Float).SetUint64(u>>11), -53)
		w, _ := want.Float64()
		if got := r.Float64(); got != w {
			t.Fatalf("Float64 draw %d = %v, want %v", i, got, w)
		}
		u = ref.next()
		w32 := float32(u>>40) / (1 << 24)
		if got := r.Float32(); got != w32 {
			t.Fatalf("Float32 draw %d = %v, want %v", i, got, w32)
		}
	}
}

func TestSameSeedSameStream(t *testing.T) {
	a, b, c := New(3), New(3), New(4)
	differ := false
	for i := 0; i < 100; i++ {
		x, y, z := a.NormFloat64(), b.NormFloat64(), c.NormFloat64()
		if x != y {
			t.Fatalf("draw %d: same seed gave %v and %v", i, x, y)
		}
		differ = differ || x != z
	}
	if !differ {
		t.Fatal("seeds 3 and 4 gave the same stream")
	}
	pa, pb := a.Perm(20), b.Perm(20)
	for i := range pa {
		if pa[i] != pb[i] {
			t.Fatal("same seed, different Perm")
		}
	}
}

func TestMoments(t *testing.T) {
	r := New(11)
	const n = 200000
	var s1, s2, u1 float64
	f32min, f32max := float32(1), float32(0)
	for i := 0; i < n; i++ {
		z := r.NormFloat64()
		s1 += z
		s2 += z * z
		u1 += r.Float64()
		f := r.Float32()
		f32min, f32max = min(f32min, f), max(f32max, f)
	}
	if m := s1 / n; !(math.Abs(m) <= 0.01) {
		t.Errorf("normal mean %v", m)
	}
	if v := s2 / n; !(math.Abs(v-1) <= 0.015) {
		t.Errorf("normal variance %v", v)
	}
	if m := u1 / n; !(math.Abs(m-0.5) <= 0.005) {
		t.Errorf("uniform mean %v", m)
	}
	if f32min < 0 || f32max >= 1 || f32max < 0.999 || f32min > 0.001 {
		t.Errorf("Float32 range [%v, %v]", f32min, f32max)
	}
}

func TestIntNUniform(t *testing.T) {
	r := New(5)
	const k, n = 7, 70000
	var counts [k]int
	for i := 0; i < n; i++ {
		v := r.IntN(k)
		if v < 0 || v >= k {
			t.Fatalf("IntN(%d) = %d", k, v)
		}
		counts[v]++
	}
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c) - n/k
		chi2 += d * d / (n / k)
	}
	if chi2 > 22.5 { // 6 degrees of freedom, p = 0.001
		t.Errorf("chi-square %v, counts %v", chi2, counts)
	}
	if r.IntN(1) != 0 {
		t.Error("IntN(1) != 0")
	}
}

func TestPerm(t *testing.T) {
	r := New(9)
	for _, n := range []int{0, 1, 2, 17} {
		p := r.Perm(n)
		seen := make([]bool, n)
		for _, v := range p {
			if v < 0 || v >= n || seen[v] {
				t.Fatalf("Perm(%d) = %v is not a permutation", n, p)
			}
			seen[v] = true
		}
	}
	// Every permutation of 3 items appears with about equal frequency.
	counts := map[[3]int]int{}
	for i := 0; i < 6000; i++ {
		p := r.Perm(3)
		counts[[3]int{p[0], p[1], p[2]}]++
	}
	if len(counts) != 6 {
		t.Fatalf("Perm(3) produced %d distinct permutations", len(counts))
	}
	for p, c := range counts {
		if c < 850 || c > 1150 {
			t.Errorf("permutation %v seen %d times of 6000", p, c)
		}
	}
}

func TestMarshalResume(t *testing.T) {
	a := New(13)
	a.Uint64()
	st, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := a.Uint64()
	b := New(0)
	if err := b.UnmarshalBinary(st); err != nil {
		t.Fatal(err)
	}
	if got := b.Uint64(); got != want {
		t.Fatalf("resumed draw %#x, want %#x", got, want)
	}
	if err := b.UnmarshalBinary([]byte("junk")); err == nil {
		t.Fatal("UnmarshalBinary accepted junk")
	}
}

func TestSplitIndependent(t *testing.T) {
	a := New(1)
	c1, c2 := a.Split(), a.Split()
	if c1.Uint64() == c2.Uint64() {
		t.Fatal("two splits start identically")
	}
}

// TestMix64: SplitMix64's published first outputs from state 0 (the
// reference implementation's 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4,
// 0x06c45d188009454f), each Mix64 of the previous state.
func TestMix64(t *testing.T) {
	var z uint64
	for i, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := Mix64(z); got != want {
			t.Errorf("output %d: %#x, want %#x", i, got, want)
		}
		z += 0x9e3779b97f4a7c15
	}
}
