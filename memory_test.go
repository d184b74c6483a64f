package decoreg

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"decoreg/internal/head"
)

// TestTargetBytes: the memory estimate of the training targets covers
// what head.Encode keeps for them (a decoder's tokens and masks of
// allowed tokens ran a 10-million-row training out of memory past the
// check), within a factor of two.
func TestTargetBytes(t *testing.T) {
	const rows = 50000
	r := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, rows)
	for i := range y {
		y[i] = r.NormFloat64()
	}
	x := make([]float64, rows)
	for _, vs := range []string{"normalized:base=10,length=6", "unnormalized:base=10,exponent=2,mantissa=4", "normalized:base=2,length=12"} {
		cfg := DefaultConfig(Config{Head: HeadDecoder, Vocab: vs, EncWidth: 8, DecWidth: 8})
		m, _, _, err := prepare(x, rows, 1, y, cfg, false)
		if err != nil {
			t.Fatalf("%s: %v", vs, err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		tg, err := head.Encode(&m.net.Cfg, m.units, y)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC() // what the targets keep
		runtime.ReadMemStats(&after)
		got := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		est := targetBytes(cfg) * rows
		if !(est >= 0.5*got && est <= 2*got) {
			t.Errorf("%s: targets allocate %.3g bytes, estimated %.3g", vs, got, est)
		}
		t.Logf("%s: the targets keep %.3g bytes, estimated %.3g", vs, got, est)
		runtime.KeepAlive(tg)
	}
}
