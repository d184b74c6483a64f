package experiments

import (
	"fmt"
	"strings"

	"decoreg"
)

// The benchmark's head names.
const (
	MDN                 = "mdn"                  // mixture density network
	DecoderUnnormalized = "decoder-unnormalized" // decoder over decoreg.DefaultUnnormalized tokens
	DecoderNormalized   = "decoder-normalized"   // decoder over decoreg.DefaultVocab tokens
	Riemann             = "riemann"              // histogram over uniform bins
	Pointwise           = "pointwise"            // one scalar, MSE (no density)
)

// BenchHeads lists the benchmark's heads in the order of the paper's table
// (the pointwise baseline last). Runs and report columns follow this order.
var BenchHeads = []string{MDN, DecoderUnnormalized, DecoderNormalized, Riemann, Pointwise}

// HeadConfig returns the default configuration of a benchmark head, with
// every default filled in by decoreg.DefaultConfig.
func HeadConfig(name string) (decoreg.Config, error) {
	var c decoreg.Config
	switch name {
	case MDN:
		c.Head = decoreg.HeadMDN
	case DecoderUnnormalized:
		c.Head, c.Vocab = decoreg.HeadDecoder, decoreg.DefaultUnnormalized
	case DecoderNormalized:
		c.Head, c.Vocab = decoreg.HeadDecoder, decoreg.DefaultVocab
	case Riemann:
		c.Head = decoreg.HeadRiemann
	case Pointwise:
		c.Head = decoreg.HeadPointwise
	default:
		return c, fmt.Errorf("unknown head %q (want one of %s)", name, strings.Join(BenchHeads, ", "))
	}
	return decoreg.DefaultConfig(c), nil
}

// ParseHeads parses a comma-separated list of benchmark head names and
// returns them, without duplicates, in the order of BenchHeads.
func ParseHeads(s string) ([]string, error) {
	want := map[string]bool{}
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no heads in %q", s)
	}
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("%q: entry %d is empty; give head names separated by commas", s, i+1)
		}
		if _, err := HeadConfig(f); err != nil {
			return nil, err
		}
		want[f] = true
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("no heads in %q", s)
	}
	var out []string
	for _, h := range BenchHeads {
		if want[h] {
			out = append(out, h)
		}
	}
	return out, nil
}

// Overrides are settings that replace the per-head defaults in every run of
// a benchmark; a zero field keeps the default. The decoder fields apply to
// the decoder heads only.
type Overrides struct {
	EncLayers, EncWidth           int
	DecLayers, DecWidth, DecHeads int
	BatchSize, MaxEpochs          int
	Patience                      int
	LR                            float64
	Threads                       int    // matrix-kernel threads (0: all cores)
	Seed                          uint64 // training seed of every run
}

// apply returns c with the overrides set, defaults filled in.
func (o Overrides) apply(c decoreg.Config) decoreg.Config {
	set := func(p *int, v int) {
		if v != 0 {
			*p = v
		}
	}
	set(&c.EncLayers, o.EncLayers)
	set(&c.EncWidth, o.EncWidth)
	if c.Head == decoreg.HeadDecoder {
		set(&c.DecLayers, o.DecLayers)
		set(&c.DecWidth, o.DecWidth)
		set(&c.DecHeads, o.DecHeads)
	}
	set(&c.BatchSize, o.BatchSize)
	set(&c.MaxEpochs, o.MaxEpochs)
	set(&c.Patience, o.Patience)
	if o.LR != 0 {
		c.LR = o.LR
	}
	c.Threads = o.Threads
	c.Seed = o.Seed
	return decoreg.DefaultConfig(c)
}

// axis is one hyper-parameter of a sweep grid: its name, the values as
// shown to people, and a setter taking the value's index.
type axis struct {
	name   string
	values []string
	set    func(c *decoreg.Config, k int)
}

var lrAxis = axis{"lr", []string{"1e-4", "5e-4"}, func(c *decoreg.Config, k int) {
	c.LR = []float64{1e-4, 5e-4}[k]
}}

func vocabAxis(specs ...string) axis {
	return axis{"vocab", specs, func(c *decoreg.Config, k int) { c.Vocab = specs[k] }}
}

// sweepAxes is the sweep grid of every head: lr crossed with one
// head-specific axis, all values from the paper's grid (DESIGN.md section 6).
var sweepAxes = map[string][]axis{
	MDN: {lrAxis, {"components", []string{"1", "5", "20"}, func(c *decoreg.Config, k int) {
		c.Components = []int{1, 5, 20}[k]
	}}},
	DecoderUnnormalized: {lrAxis, vocabAxis(
		"unnormalized:base=10,exponent=1,mantissa=2",
		"unnormalized:base=10,exponent=1,mantissa=4",
		"unnormalized:base=4,exponent=2,mantissa=8",
	)},
	DecoderNormalized: {lrAxis, vocabAxis(
		"normalized:base=4,length=4",
		"normalized:base=8,length=4",
		"normalized:base=8,length=6",
	)},
	Riemann: {lrAxis, {"bins", []string{"64", "256", "1024"}, func(c *decoreg.Config, k int) {
		c.Bins = []int{64, 256, 1024}[k]
	}}},
	Pointwise: {lrAxis, {"weight_decay", []string{"0", "0.1", "1"}, func(c *decoreg.Config, k int) {
		c.WeightDecay = []float64{0, 0.1, 1}[k]
	}}},
}

// Candidate is one point of a sweep grid.
type Candidate struct {
	Label  string // e.g. "lr=1e-4 bins=64"
	Config decoreg.Config
}

// SweepGrid returns the sweep candidates of a head derived from base (a
// defaulted configuration of that head): the cross product of the head's
// axes, the first axis varying slowest. See SweepDescription.
func SweepGrid(head string, base decoreg.Config) []Candidate {
	axes, ok := sweepAxes[head]
	if !ok {
		panic("experiments: no sweep grid for head " + head)
	}
	out := []Candidate{{Config: base}}
	for _, a := range axes {
		var next []Candidate
		for _, c := range out {
			for k, v := range a.values {
				n := c
				a.set(&n.Config, k)
				n.Label = strings.TrimSpace(c.Label + " " + a.name + "=" + v)
				next = append(next, n)
			}
		}
		out = next
	}
	for i := range out {
		out[i].Config = decoreg.DefaultConfig(out[i].Config)
	}
	return out
}

// SweepDescription describes the sweep grid of every head, one line each,
// for help texts.
func SweepDescription() string {
	var b strings.Builder
	for _, h := range BenchHeads {
		fmt.Fprintf(&b, "%s:", h)
		for i, a := range sweepAxes[h] {
			if i > 0 {
				b.WriteString(" x")
			}
			fmt.Fprintf(&b, " %s {%s}", a.name, strings.Join(a.values, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// DefaultsDescription describes the default hyper-parameters of every head,
// one line each, for help texts.
func DefaultsDescription() string {
	var b strings.Builder
	for _, h := range BenchHeads {
		c, _ := HeadConfig(h)
		fmt.Fprintf(&b, "%s: encoder %dx%d", h, c.EncLayers, c.EncWidth)
		switch c.Head {
		case decoreg.HeadDecoder:
			fmt.Fprintf(&b, ", decoder %d layer(s) x %d units x %d head(s), %s", c.DecLayers, c.DecWidth, c.DecHeads, c.Vocab)
		case decoreg.HeadRiemann:
			fmt.Fprintf(&b, ", %d bins", c.Bins)
		case decoreg.HeadMDN:
			fmt.Fprintf(&b, ", %d components", c.Components)
		case decoreg.HeadPointwise:
			fmt.Fprintf(&b, ", weight decay %g", c.WeightDecay)
		}
		fmt.Fprintf(&b, "; lr %g\n", c.LR)
	}
	c, _ := HeadConfig(MDN)
	fmt.Fprintf(&b, "all: Adam, batch %d, at most %d epochs, early stopping with patience %d on %g of the train part\n",
		c.BatchSize, c.MaxEpochs, c.Patience, c.ValFrac)
	return b.String()
}
