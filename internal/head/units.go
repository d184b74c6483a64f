package head

import (
	"math"

	"decoreg/dist"
)

// Map says how a head's own units t relate to the normalized target u.
type Map uint8

// The unit maps.
const (
	U       Map = iota // t = u (normalized decoder, Riemann)
	Shifted            // t = u - 0.5 (pointwise, MDN, unnormalized decoder)
	Raw                // t = y, the original target (unnormalized decoder with RawTarget)
)

// Units converts between the original target y, the normalized target
// u = (y - YMin)/(YMax - YMin) and a head's units t. Every unit conversion
// of the package goes through it: densities convert as
// NLL_u = NLL_t - LogTPerU() and NLL_y = NLL_u + LogRange().
type Units struct {
	YMin, YMax float64 // the training targets' range, YMax > YMin
	Map        Map
}

// Range is YMax - YMin.
func (s Units) Range() float64 { return s.YMax - s.YMin }

// ToU maps y to u.
func (s Units) ToU(y float64) float64 { return (y - s.YMin) / s.Range() }

// ToHead maps u to head units t.
func (s Units) ToHead(u float64) float64 {
	switch s.Map {
	case Raw:
		return s.YMin + u*s.Range()
	case Shifted:
		return u - 0.5
	}
	return u
}

// HeadOf maps y, clipped to [YMin, YMax], to head units t by the
// arithmetic of the distributions' y -> t (t = (y - Offset)/Scale, with
// Affine's Offset and Scale): a target on a cell's edge is then in the same
// cell when training and evaluation encode it as when a distribution
// scores it. (ToHead(ToU(y)) can differ by an ulp: for Raw, 29 in
// [0, 100] became 28.999999999999996, trained in the cell below the one
// predict read, and for Shifted y_max was 0.5, the cell above, where
// predict read 0.49999999999999994.) For U, t is ToU(y).
func (s Units) HeadOf(y float64) float64 {
	y = min(max(y, s.YMin), s.YMax)
	a := s.Affine()
	return (y - a.Offset) / a.Scale
}

// Affine maps head units t to y.
func (s Units) Affine() dist.Affine {
	r := s.Range()
	switch s.Map {
	case Raw:
		return dist.Affine{Offset: 0, Scale: 1}
	case Shifted:
		return dist.Affine{Offset: s.YMin + 0.5*r, Scale: r}
	}
	return dist.Affine{Offset: s.YMin, Scale: r}
}

// LogTPerU is log(dt/du): NLL_u = NLL_t - LogTPerU().
func (s Units) LogTPerU() float64 {
	if s.Map == Raw {
		return math.Log(s.Range())
	}
	return 0
}

// LogRange is log(dy/du): NLL_y = NLL_u + LogRange().
func (s Units) LogRange() float64 { return math.Log(s.Range()) }
