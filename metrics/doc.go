// Package metrics computes the evaluation figures of DESIGN.md section 7:
// mean squared error and relative MSE of point estimates, R², Kendall's
// tau-b between point estimates and targets, and the mean ± standard
// deviation summaries of a benchmark table.
//
// Functions that take two slices panic if their lengths differ (a
// programmer error). Figures that are undefined for the data given (no
// values, a constant target, all pairs tied) are NaN, as documented on each
// function; a NaN input makes every result NaN.
package metrics
