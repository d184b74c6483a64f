// Package dist holds the predictive distributions p(y|x) of every regression
// head, in the original units of y, behind one interface, Distribution.
//
// A head computes in its own units t; an Affine maps them to y = Offset +
// Scale*t, and densities convert with log p(y) = log p(t) - log(Scale).
//
//   - Token is the decoder head's distribution over the cells of a
//     tokenization (package vocab), read through a Decoder that steps a batch
//     of token sequences with a key/value cache. For tree tokenizations
//     (vocab.Tree: Normalized, Unnormalized) CDF, Quantile and Median are exact
//     tree walks of K decoder steps and Mean is an expansion of the tree with
//     a reported error bound; for the others (Hamming, Repeat) they are
//     estimates from a seeded sample.
//   - Riemann is the histogram head: n uniform bins on [0,1].
//   - MDN is the mixture density network's Gaussian mixture.
//   - Point is the pointwise head's point mass.
//   - Mixture is an ensemble's equal mixture of distributions, and
//     Recalibrated a distribution whose CDF F is recalibrated to R(F) by a
//     monotone map (Recalibration, fitted to held-out PIT values).
//
// A token head's density is piecewise uniform: the probability of a cell's
// sequence divided by the cell's width (DESIGN.md section 3). All
// probabilities are renormalised over the tokens the tokenization allows, in
// float64. A token head's Mode is the centre of the most probable cell (the
// most probable token sequence, by beam search), not the densest cell. Its
// Sample (and a Riemann head's) draws a cell, then a value uniform within
// it, so that draws follow the same density; SampleOptions.Centres draws
// the cells' centres, the decoded values of the paper's decoder.
//
// Nothing a decoder emits makes a Token panic or return NaN: a NaN logit
// counts as -Inf, +Inf logits share the mass, and all -Inf logits give a
// uniform choice; the quantile walk follows conditional probabilities, so a
// prefix whose probability underflows to 0 still leads to a cell; summaries
// that would leave the float64 range (cells beyond it, of an unbounded
// Unnormalized tokenization) saturate at ±MaxFloat64.
//
// Special cells (NaN, +Inf, -Inf; tokens whose TokenString is "nan", "inf"
// or "-inf") have zero mass in the numeric summaries of a Token: Mean,
// Median, Mode, Quantile and CDF describe the head with those tokens masked
// out like invalid ones at every step. Sample and LogPDF keep them: a sample
// may be NaN or ±Inf, and LogPDF of a special value is the log probability
// of its sequence (a point mass, not a density).
package dist
