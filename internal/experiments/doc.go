// Package experiments runs decoreg's benchmark experiments and reports them:
// the UCI density-estimation benchmark of the paper's NLL table (DESIGN.md
// section 8.7), one JSON result file per (dataset, head, split) run, and the
// markdown table summarising a directory of results.
//
// # Results layout
//
// RunUCI writes RESULTS/<dataset>/<head>/split<k>.json atomically (a run
// that is interrupted leaves no file) and skips runs whose file exists, so a
// benchmark can be stopped and resumed, or spread over several machines with
// disjoint shards of the deterministic run order. Report reads such a tree.
//
// # Heads
//
// The benchmark's head names are those of the paper's table plus the
// pointwise baseline: "mdn", "decoder-unnormalized", "decoder-normalized",
// "riemann" and "pointwise". Their hyper-parameters are decoreg's defaults
// (decoreg.DefaultConfig), chosen once from the paper's grid and the same
// for every dataset; see HeadConfig and SweepGrid.
package experiments
