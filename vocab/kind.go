package vocab

// Base returns the tokenization inside t's wrappers: the inner tokenization
// of a Repeat, the unbounded one of a Bounded (repeatedly).
func Base(t Tokenizer) Tokenizer {
	for {
		switch v := t.(type) {
		case *Repeat:
			t = v.inner
		case *Bounded:
			t = v.inner
		default:
			return t
		}
	}
}

// IsUnnormalized reports whether t is an Unnormalized tokenization, possibly
// repeated or bounded: a tokenization of any real value by sign, exponent
// and mantissa, rather than of [0, 1].
func IsUnnormalized(t Tokenizer) bool {
	_, ok := Base(t).(*Unnormalized)
	return ok
}

// SpecialKind returns the Kind of token tok of t: NaN, PosInf or NegInf for
// the special tokens, Finite for every other token (digits, signs) and for
// a token out of range.
func SpecialKind(t Tokenizer, tok int) Kind {
	if s, ok := Base(t).(interface{ alpha() alphabet }); ok {
		if a := s.alpha(); a.isSpecial(tok) {
			return a.specialKind(tok)
		}
	}
	return Finite
}

func (a alphabet) alpha() alphabet { return a }
