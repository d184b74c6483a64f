// Package jsonfloat is a float64 that survives JSON: encoding/json refuses
// NaN and the infinities, which metrics and losses can be.
package jsonfloat

import (
	"fmt"
	"math"
	"strconv"
)

// Float is a float64 whose JSON form is a number, null for NaN, or the
// strings "+Inf" and "-Inf"; decoding reverses that.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte("null"), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler. It also reads the strings
// "Inf" and "NaN", as decoreg show and tokenize write them (a result file
// edited to show's spelling was refused: helper-149).
func (f *Float) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null", `"NaN"`:
		*f = Float(math.NaN())
		return nil
	case `"+Inf"`, `"Inf"`:
		*f = Float(math.Inf(1))
		return nil
	case `"-Inf"`:
		*f = Float(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*f = Float(v)
	return nil
}
