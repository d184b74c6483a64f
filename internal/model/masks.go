package model

import (
	"fmt"
	"math"

	"decoreg/vocab"
)

// Masks fills mask (B, T, V) with the allowed-token masks of the token
// sequences tokens (B, T): mask[b,i,v] is true when tok.Allowed lists v
// after the prefix tokens[b, 0..i-1]. T = tok.Len(), V = tok.Size().
func Masks(tok vocab.Tokenizer, tokens []int32, B int, mask []bool) {
	fillMasks(tok, tokens, B, mask, nil, nil)
}

// fillMasks is Masks with caller-owned scratch slices, returned for reuse.
func fillMasks(tok vocab.Tokenizer, tokens []int32, B int, mask []bool, prefix, allowed []int) ([]int, []int) {
	T, V := tok.Len(), tok.Size()
	if len(tokens) < B*T {
		panic("model: Masks tokens shorter than (B, T)")
	}
	if len(mask) < B*T*V {
		panic("model: Masks mask shorter than (B, T, V)")
	}
	for b := range B {
		prefix = prefix[:0]
		for i := range T {
			row := mask[(b*T+i)*V : (b*T+i+1)*V]
			clear(row)
			allowed = tok.Allowed(allowed[:0], prefix)
			for _, v := range allowed {
				if v < 0 || v >= V {
					panic(fmt.Sprintf("model: tokenization %q allows token %d outside [0, %d)", tok.Spec(), v, V))
				}
				row[v] = true
			}
			prefix = append(prefix, int(tokens[b*T+i]))
		}
	}
	return prefix, allowed
}

// sigmoid32 is 1 / (1 + exp(-x)), computed in float64.
func sigmoid32(x float32) float32 {
	return float32(1 / (1 + math.Exp(-float64(x))))
}
