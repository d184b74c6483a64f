// Package vocab holds the number tokenizations of decoding-based regression:
// exact bijections between fixed-length token sequences and cells, the
// disjoint intervals that tile a representable range (DESIGN.md section 2).
//
// # Kinds
//
//   - Normalized(B, K): y in [0, 1], the K base-B digits of the cell index i,
//     cell [i, i+1) * B^-K; y = 1 belongs to the last cell.
//   - Unnormalized(B, E, M): y in R, tokens s, s_e, e_1..e_E, m_1..m_M; the
//     cell of (s, e, m), m in [B^(M-1), B^M-1], has magnitudes
//     [m, m+1) * B^(e-M+1). One zero sequence covers (-B^emin, B^emin).
//   - Hamming(L): the cell index of Normalized(2, L), written as the i-th bit
//     string in the order (number of ones, then lexicographic).
//   - Repeat(R, inner): the inner sequence written R times, decoded by a
//     per-position majority vote.
//
// Normalized and Unnormalized implement Tree: every prefix stands for a
// contiguous interval and Children lists a prefix's continuations in
// numeric order. Bound restricts a Tree (or a Repeat of one) to the cells
// that meet an interval; decoreg bounds an unnormalized decoder to its
// training range widened by a margin, so that no mass goes to absurd
// exponents. IsUnnormalized and SpecialKind tell a tokenization's kind and
// a token's meaning by type, through the Repeat and Bounded wrappers.
//
// # Limits
//
// Parse accepts only what a model can use end to end (Usable): cells that
// float64 resolves, base^length (2^length for Hamming, base^mantissa for
// Unnormalized) at most 2^MaxCellBits = 2^50, so that every cell holds at
// least 4 float64 values (length <= 15 for base 10, <= 50 for base 2, <= 9
// for base 36), and sequences of at most MaxSeqLen = 256 tokens, repeats
// included. The constructors accept more (up to MaxLength digits) for
// exact-arithmetic work. An Unnormalized exponent range may exceed float64
// (base 10, exponent 4 reaches 10^9999): such cells decode to ±Inf or 0;
// bound the tokenization to use it in a model. Training asks more
// (Trainable): no special tokens, and Unnormalized cells all of positive
// width in float64, B^-(B^E - 1 + M - 1) >= 2^-1074 (exponent <= 2 for
// base 10, <= 10 for base 2), so that every target has a finite density.
//
// # Token ids
//
// The digits 0..B-1 are the token ids 0..B-1 and print as "0".."9" then
// "a".."z" (so B <= 36). Unnormalized adds "+" (id B) and "-" (id B+1).
// With special tokens on, "nan", "inf" and "-inf" follow, in that order
// (ids B, B+1, B+2 for Normalized and Hamming; B+2, B+3, B+4 for
// Unnormalized). Repeat uses its inner tokenization's ids.
//
// # Cell edges and membership
//
// An edge is the float64 nearest to the exact rational edge (ties to even,
// computed with math/big whenever float64 arithmetic would not be exact), and
// a value v belongs to the cell with lo <= v < hi compared in float64. So
// 0.3 encodes as 3,0,0,0 with B=10, K=4, although the double nearest 0.3 lies
// below 3/10. For Unnormalized the rule applies to the magnitude |v|: a
// negative v belongs to the cell of sign "-" whose magnitudes satisfy
// lo <= |v| < hi, so negative cells are the mirror images (-hi, -lo] of the
// positive ones, and -1000 encodes as -1.000e3 exactly as 1000 encodes as
// 1.000e3. The zero sequence ("+", "-", the largest exponent digits, an
// all-zero mantissa) holds every v with |v| < fl(B^emin), and always holds
// 0 and -0 (also when B^emin underflows to 0).
//
// A cell's Center is the float64 nearest its exact centre, except that it is
// moved below Hi when it would round to Hi, so that Encode(Decode(s).Center)
// gives back s for every cell that contains a float64. Cells narrower than
// the float64 spacing may contain no float64 at all (lo == hi); Encode never
// returns them, and cells beyond the float64 range decode to ±Inf or 0.
//
// # Special tokens
//
// With special tokens on, NaN, +Inf and -Inf encode as the special token
// repeated over the whole sequence length; Allowed offers the specials at
// position 0 and then forces the same special. Without them, NaN and ±Inf
// are an error. Decoding a special sequence gives a Cell of Kind NaN,
// PosInf or NegInf whose Lo, Hi and Center are that value.
//
// All arithmetic is float64 or exact (math/big); nothing is computed in
// single precision.
package vocab
