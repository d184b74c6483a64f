package nn

import (
	"math"

	"decoreg/internal/rng"
)

// InitLinear initialises a Linear layer of fan-in C as PyTorch's nn.Linear
// does: every weight, then every bias, uniform in [-1/sqrt(C), 1/sqrt(C))
// (kaiming_uniform with a = sqrt(5) gives that same bound for the
// weights). w (OC, C); b (OC) or nil. Draws come from r in index order.
func InitLinear(w, b []float32, C int, r *rng.RNG) {
	if C <= 0 {
		panic("nn: InitLinear with fan-in C <= 0")
	}
	bound := float32(1 / math.Sqrt(float64(C)))
	InitUniform(w, bound, r)
	if b != nil {
		InitUniform(b, bound, r)
	}
}

// InitUniform sets every x[i] to a uniform value in [-bound, bound):
// bound*(2u - 1) with u = r.Float32().
func InitUniform(x []float32, bound float32, r *rng.RNG) {
	for i := range x {
		x[i] = bound * (2*r.Float32() - 1)
	}
}

// InitNormal sets every x[i] to std * r.NormFloat64(). PyTorch initialises
// nn.Embedding with std 1; GPT-2 uses 0.02 for token and position
// embeddings.
func InitNormal(x []float32, std float32, r *rng.RNG) {
	for i := range x {
		x[i] = std * float32(r.NormFloat64())
	}
}

// InitLayerNorm sets a LayerNorm's gain w to 1 and bias b to 0, as
// PyTorch's nn.LayerNorm.
func InitLayerNorm(w, b []float32) {
	for i := range w {
		w[i] = 1
	}
	clear(b)
}
