package decoreg

import (
	"fmt"
	"runtime"

	"decoreg/data"
	"decoreg/internal/memlimit"
	"decoreg/vocab"
)

// Training's memory, by the parameter: the weights, their gradients,
// Adam's two moments and the best epoch's copy (4 bytes each; Config.EMA's
// moving average another 4), a frozen
// model's packed weights besides. Measured (2026-11-28, AMD EPYC): a
// decoder of 16.9M parameters (5 x 2048 encoder) trained with a peak RSS
// 400 MB above a tiny model's, 24 bytes a parameter. A finished ensemble
// member keeps its weights and packed copy (8 bytes a parameter).
const (
	trainBytesPerParam  = 24
	memberBytesPerParam = 8
)

// trainBytesPer is training's memory per parameter for c: with
// Config.EMA, 4 bytes more for the weights' moving average.
func trainBytesPer(c Config) float64 {
	if c.EMA > 0 {
		return trainBytesPerParam + 4
	}
	return trainBytesPerParam
}

// trainBytes estimates the memory Fit needs for c on rows x cols data: the
// network being trained (params parameters), the members already trained,
// the features (their float32 and transformed copies) and the targets.
func trainBytes(c Config, params float64, rows, cols int) float64 {
	in := float64(cols)
	if c.InputTransform == data.TransformPLE {
		in *= float64(1 + c.PLEBins) // the encoding (float64 while fitted, then float32) beside the features
	}
	return trainBytesPer(c)*params + memberBytesPerParam*params*float64(max(c.Ensemble, 1)-1) +
		float64(rows)*(16*in+targetBytes(c)) + pretrainBytes(c, cols)
}

// targetBytes is the memory of a row's training target (head.Targets):
// for a decoder, its token sequence (4 bytes a token) and the tokens
// allowed along it (a byte a token and vocabulary entry), a few numbers
// besides; for the other heads, those few numbers. A decoder's targets of
// 10 million rows at base 10 and length 6 take about a GB.
func targetBytes(c Config) float64 {
	const other = 24 // the target, the cell's log width, and the value in head units
	if c.Head == HeadDecoder {
		if t, err := vocab.Parse(c.Vocab); err == nil {
			return float64(t.Len()*(4+t.Size())) + other
		}
	}
	return other
}

// pretrainBytes is the training memory of Config.Pretrain's first
// stage, the pointwise network on c's encoder, which is held beside the
// network that waits for it; 0 without Pretrain.
func pretrainBytes(c Config, cols int) float64 {
	if c.Pretrain == "" {
		return 0
	}
	pc := pretrainConfig(c)
	return trainBytesPer(pc) * (pc.approxParams() + pc.inputParams(cols))
}

// sizesOK reports whether x holds rows x cols values and y rows, rows at
// least 1: the sizes a memory estimate may trust.
func sizesOK(x []float64, rows, cols int, y []float64) bool {
	return rows >= 1 && shapeOK(len(x), rows, cols) && len(y) == rows
}

// checkMemory refuses need bytes, for what, when they exceed 90% of what
// the process's limits leave it (memlimit.Available), with an error
// wrapping ErrTooLarge.
func checkMemory(need float64, what string) error {
	return checkMemoryAdvice(need, what, "choose a smaller encoder or decoder (fewer or narrower layers, fewer members or trials), or fewer rows")
}

// checkMemoryAdvice is checkMemory with its own advice on what to change.
func checkMemoryAdvice(need float64, what, advice string) error {
	l, ok := memlimit.Available()
	if ok && need > 0.9*l.Bytes {
		// The heap may hold garbage (a model trained before): collected,
		// it is idle heap, which Available counts as free.
		runtime.GC()
		l, ok = memlimit.Available()
	}
	if !ok || need <= 0.9*l.Bytes {
		return nil
	}
	return fmt.Errorf("%w: %s needs about %.2g GiB, and %s leaves this process %.2g GiB: %s",
		ErrTooLarge, what, need/(1<<30), l.What, max(l.Bytes, 0)/(1<<30), advice)
}
