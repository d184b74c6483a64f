// Package model builds the paper's networks from the engine's layers
// (internal/nn): a ReLU MLP encoder phi(x) and one of four regression heads
// on top of it.
//
// The encoder is EncLayers x (Linear, ReLU). With Config.Encoder
// PLREncoder each feature x_j is first embedded by PLR (Gorishniy et al.,
// "On Embeddings for Numerical Features in Tabular Deep Learning", 2022):
// ReLU(W_j [cos(2π c_j x_j), sin(2π c_j x_j)] + b_j) with PLRFreqs learned
// frequencies c_j and a PLRDim x 2*PLRFreqs weight W_j of its own; the
// In*PLRDim values, concatenated in feature order, are the MLP's input.
// Its tensors plr.freq (In, K), plr.w (In, D, 2K) and plr.b (In, D) come
// first in the arena. (The PyTorch peer has no PLR encoder.)
//
//   - Decoder: a causal Transformer over a tokenization. The input at
//     position 0 is Linear(EncWidth, d)(phi(x)); positions 1..T-1 are the
//     token embeddings of t_1..t_{T-1} (teacher forcing); learned positional
//     embeddings are added at every position. L post-LayerNorm blocks follow,
//     x = LN1(x + Attn(x)); x = LN2(x + FFN(x)), with LayerNorm eps 1e-6,
//     H heads of width d/H, qkv = Linear(d, 3d) with bias, output projection
//     Linear(d, d) and FFN = Linear(d, DFF), ReLU, Linear(DFF, d). The output
//     Linear(d, V) at position i gives the logits of token t_{i+1}. The loss of
//     one example is the cross-entropy summed over the T positions, the
//     batch loss is its mean over the batch.
//   - Pointwise: Linear(EncWidth, 1), optionally followed by sigmoid(z)-0.5,
//     trained with the squared error against t = u - 0.5.
//   - Riemann: Linear(EncWidth, Bins), a softmax over uniform bins of [0, 1].
//   - MDN: Linear(EncWidth, 3M) = [mixture logits | means | raw sd], with
//     sd = ELU(raw) + 1, on t = u - 0.5.
//
// This is the same network as the PyTorch peer in shared/peers/torch_ref
// (model.py, with its default head width d/H), parameter for parameter: the
// same tensors and shapes, one to one, with no transposes. golden_test.go
// checks it: testdata/golden.json, written by testdata/make_golden.py with
// the peer's own code in float64, holds a small network of every head (the
// decoder over a normalized and an unnormalized tokenization, the latter
// with the peer's masked loss too), a batch, the loss and every gradient,
// and the float32 Forward and Backward here agree to about 1e-6. The one
// difference in training is the default loss: the peer trains the decoder
// on the unmasked cross-entropy (Config.MaskLoss false); the public API
// masks it with the tokenization's allowed tokens unless
// decoreg.Config.UnmaskedLoss is set.
//
// # Memory layout
//
// All parameters live in one float32 arena (Params), their gradients in a
// second arena of the same length (Grads), so an optimizer is one loop and
// a checkpoint is one write; Tensors lists the named views in arena order.
// Activations are carved from one block sized for the largest batch seen,
// so Forward and Backward do not allocate in steady state. Every buffer is
// flat and row-major; shapes are written in comments as (B, T, C).
//
// # Threads and concurrency
//
// Every kernel a model runs (the matrix multiplies and the parallel loops
// of the layers, in training and in inference) runs on the model's own
// thread count, Config.Threads (0: all cores), which Threads reports
// resolved; there is no process-wide setting, so models of different
// counts may run side by side. Results do not depend on the count.
//
// Forward, Backward, RowLosses, ZeroGrad and the parameter arenas belong to
// one goroutine at a time. Encode, HeadOutputs, Decoder and the Steppers it
// starts only read the parameters and keep their own buffers, so any number
// of them may run concurrently with each other (not with a training step).
package model
