package vocab

// IsUnnormalized reports whether tok is a sign/exponent/mantissa
// tokenization (an *Unnormalized, possibly inside a *Repeat), which models
// values on the real line rather than in [0, 1].
func IsUnnormalized(tok Tokenizer) bool {
	for {
		switch t := tok.(type) {
		case *Unnormalized:
			return true
		case *Repeat:
			tok = t.inner
		default:
			return false
		}
	}
}
