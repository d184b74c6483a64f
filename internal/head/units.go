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
