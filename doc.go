// Package decoreg is decoding-based regression (Song & Bahri, "Decoding-based
// Regression", 2025) in Go: a model predicts a number by decoding it token by
// token — sign, exponent, digits — with a small causal Transformer head on top
// of an MLP encoder, and so gives a full predictive distribution p(y|x), not
// only a point.
//
// The package follows scikit-learn's contract in Go. A Config holds the
// hyper-parameters; Fit trains a Model on rows of features and targets; a
// Model answers Predict (means, medians, modes, quantiles), Dist (the whole
// predictive distribution of one input: exact CDF, quantiles and log-density
// for tree tokenizations, and sampling), Evaluate (NLL, MSE, Kendall's tau)
// and Score (R²). Models are saved to and loaded from versioned, checksummed
// files. Every call that works over many rows takes a context.Context first
// and stops between chunks of rows once it is done, with an error wrapping
// ctx.Err() (a nil context is context.Background()).
//
// Tables as they come: FitFrame trains on a data.Frame (data.ReadFrame), whose
// columns may be text (one-hot encoded, up to a level limit) and hold missing
// cells (imputed, with missing indicators); the fitted data.Schema is saved
// with the model, and PredictFrame, EvaluateFrame and EncodeFrame apply it.
// PredictRows, EvaluateRows and CalibrationRows read their rows from a
// RowSource a chunk at a time, such as Encoder's (a frame's rows through
// the schema), so that a table of many one-hot levels is not held encoded
// whole.
// For frames, a *DataError's Row and Column index the frame's rows and
// columns.
//
// Settings and ensembles: Tune (and TuneFrame) chooses a Config from the
// paper's grid by validation loss with successive halving within a time
// budget; Config.Ensemble trains several seeds, and NewEnsemble mixes any
// fitted models of one head, into a Model whose distribution is their equal
// mixture (dist.Mixture). Config.Calibrate fits a temperature on the
// validation rows, by their NLL or (Config.CalibrateBy "pit") by how
// uniform their PIT values are, adds a monotone map of the CDF
// ("isotonic"), or fits a decoder's temperatures per token depth
// ("depth"; Config.StopBy "depth" early-stops on the validation NLL at
// such temperatures; "crps" early-stops, compares Tune's trials and
// chooses its ensemble's members by the validation CRPS); Model.FitTemperature fits one on given rows;
// Calibration scores the distributions (CRPS, interval coverage, PIT).
//
// Threads. Config.Threads (0: every core) is the parallelism of one call.
// The parallel loops run on pooled worker goroutines, created when a loop
// finds none idle and kept, parked, for the life of the process (a few per
// core, more after many concurrent or cancelled calls; they hold no
// model): a goroutine-leak check in a program's tests should ignore
// decoreg/internal/par.(*worker).loop.
//
// Four heads share the same encoder: the decoder head over any tokenization
// of package vocab (the paper's model), and the baselines pointwise (MSE),
// Riemann (histogram) and mixture density network. Every head returns the same
// dist.Distribution, in the original units of y.
//
// Units. Targets are min-max scaled with the training set's minimum and
// maximum to u in [0,1]. The normalized decoder and the Riemann head model u;
// the pointwise head, the MDN and the unnormalized decoder model u - 0.5 (the
// unnormalized decoder can model the original y instead, Config.RawTarget).
// Densities are reported per unit of the original y: NLL_y = NLL_u +
// log(y_max - y_min).
//
// Errors. A Config that cannot work gives a *ConfigError naming the field
// (errors.Is(err, ErrConfig)); data that cannot be used gives a *DataError
// naming the row and the feature column (errors.Is(err, ErrBadInput), or
// ErrConstantTarget); a data.Frame that cannot be used (a NaN cell, a
// missing column, a malformed or nil frame) gives an error that wraps
// ErrBadInput too, package data's where it has one (naming the column and
// the file's line). The network computes in float32: a prediction row
// whose features are so far from the training data that the network's
// arithmetic overflows (standardized values beyond float32, or non-finite
// network outputs) is a *DataError naming the row and its feature furthest
// from the training mean; rows that do not overflow get finite answers.
package decoreg
