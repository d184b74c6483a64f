// Package nn holds the layers of decoreg's training engine, in the manner
// of llm.c: one function per layer and direction over flat row-major
// float32 buffers, with the sizes as arguments and no graph or autograd.
//
// Conventions shared by every function here:
//
//   - A buffer described as (N, C) holds N rows of C values, element (i, j)
//     at index i*C+j; (B, T, C) is (B*T, C) with row b*T+t. Buffers may be
//     longer than their shape needs; only the prefix is used.
//   - Every function that may split its work over goroutines takes the
//     thread count first: it uses up to that many (fewer for small work;
//     below 1 counts as 1). There is no package-level setting; a model passes its
//     own count (internal/model, Config.Threads).
//   - Forward functions overwrite their outputs (PositionalForward, which
//     adds in place, is the exception and says so) and save what the
//     backward pass needs in caller-owned buffers named in the signature
//     (LayerNorm's mean and rstd, attention's preatt and att, the softmax
//     probabilities, the MDN cache).
//   - Backward functions OVERWRITE the gradients of their inputs (din,
//     dlogits, dqkv, ...) and ADD to the gradients of parameters (dw, db,
//     dwte, dwpe), so that the gradients of several batches can be summed.
//     LinearBackward takes the choice as arguments: the model adds din into
//     a residual's gradient, and overwrites the parameter gradients on the
//     first backward pass after zeroing them (which spares the multiply a
//     read). A nil gradient argument means that gradient is not wanted and
//     is not computed. Gradient outputs must not alias the inputs they are
//     computed from.
//   - Callers own all buffers: Forward and Backward functions allocate
//     nothing (tested), except that a call whose work is split over
//     goroutines allocates a few small objects per goroutine to start them.
//     KVCache owns its storage and allocates only when a Keep or Step
//     meets a batch larger than its buffers hold (see KVCache).
//   - Matrix products go through gemm.Sgemm (gemm.Direct for the short
//     sequences' attention). Other work is split over rows (or columns, for
//     sums over rows) by par.For so that every output element is computed
//     by one goroutine in a fixed order: results are bit-identical for any
//     thread count.
//   - Vector kernels (AVX2 assembly, chosen by useAVX2 from vec.CPU) have
//     pure Go twins that give the same bits; the purego build tag and
//     other architectures use the twins.
//   - Sums that set a result's accuracy (LayerNorm mean and variance,
//     softmax denominators, log-sum-exp, bias and embedding gradients over
//     rows) are accumulated in float64; softmaxes subtract the row maximum.
//   - Wrong sizes are programmer errors and panic with an "nn: ..." message.
package nn
