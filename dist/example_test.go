package dist_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"decoreg/dist"
	"decoreg/vocab"
)

// flat is a Decoder whose every next token is equally likely: a stand-in
// for a trained decoder head, to show the Stepper contract.
type flat struct{ v int }

type flatStepper struct{ n, v int }

func (f flat) Start(n int) dist.Stepper { return &flatStepper{n, f.v} }

func (s *flatStepper) N() int { return s.n }

func (s *flatStepper) Step(_ []int, logits []float32) { clear(logits[:s.n*s.v]) }

func (s *flatStepper) Keep(idx []int) { s.n = len(idx) }

func ExampleNewToken() {
	tok, err := vocab.Parse("normalized:base=10,length=3")
	if err != nil {
		panic(err)
	}
	// Head units [0,1] map to y in [100, 150].
	d := dist.NewToken(flat{tok.Size()}, tok, dist.Affine{Offset: 100, Scale: 50}, dist.TokenOptions{})
	fmt.Printf("q10 %.4g, median %.4g, CDF(110) %.4g\n", d.Quantile(0.1), d.Median(), d.CDF(110))
	m, bound := d.MeanBound()
	fmt.Printf("mean %.6g ± %.3g, density %.4g\n", m, bound, math.Exp(d.LogPDF(120)))
	s := d.Sample(3, dist.SampleOptions{TopK: 2}, rand.New(rand.NewPCG(1, 2)))
	fmt.Println(len(s), "samples")
	// Output:
	// q10 105, median 125, CDF(110) 0.2
	// mean 125 ± 0, density 0.02
	// 3 samples
}

func ExampleNewMDN() {
	// Two components in head units; y = 10 + 2t.
	d := dist.NewMDN([]float64{0.3, 0.7}, []float64{-1, 1}, []float64{0.5, 0.5}, dist.Affine{Offset: 10, Scale: 2})
	fmt.Printf("mean %.4g, mode %.4g\n", d.Mean(), d.Mode())
	for _, q := range []float64{0.1, 0.5, 0.9} {
		fmt.Printf("q%.0f %.4f\n", 100*q, d.Quantile(q))
	}
	// Output:
	// mean 10.8, mode 12
	// q10 7.5692
	// q50 11.4344
	// q90 13.0676
}
