"""Writes golden.json, the fixture of golden_test.go: small networks built by
the PyTorch peer (shared/peers/torch_ref/model.py, imported as is), one
batch each, the loss and the gradient of every parameter, computed by
torch autograd in float64.

Run from anywhere (needs python3-torch; the Go test does not):

    /usr/bin/python3 internal/model/testdata/make_golden.py [PEER_DIR]

PEER_DIR defaults to ../shared/peers/torch_ref relative to the repository
root (the directory three levels above this script).

Every parameter and every input is drawn, rounded to float32 and widened
back to float64 before the reference is computed, so the reference is the
exact float64 result for the float32 values the Go model is given. The
LayerNorm gains and biases are drawn too (1 + 0.2 N(0,1), 0.2 N(0,1)) so
that a swapped or misplaced LayerNorm shows.

Cases (all with In 3, an encoder of 2 x (Linear 6 + ReLU), batch 5):
  decoder_norm    Decoder(kind='norm', B=4, K=3), d 8, 2 heads, 2 blocks,
                  dff = d; loss = the peer's training loss (unmasked CE;
                  the normalized mask allows every token, so the masked
                  loss is the same).
  decoder_unorm   Decoder(kind='unorm', B=4, E=1, M=2), d 8, 2 heads,
                  1 block, dff 12, with proj, tok_emb, pos_emb and the
                  attention's output projection scaled by 0.01 so that the first LayerNorm's input has a variance
                  near 1e-4 and its eps (1e-6) shows in the loss; two losses: "unmasked" (the peer's
                  training loss) and "masked" (the peer's masked
                  log-likelihood, -mean log P_masked(t), i.e. its nll
                  without the cell-width term), with the peer's (L, V) mask.
  pointwise, riemann (5 bins), mdn (3 components): the peer's loss.
"""
import json
import math
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
peer = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "..", "shared", "peers", "torch_ref")
sys.path.insert(0, os.path.abspath(peer))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import model as pm  # noqa: E402  (the peer's model.py)

torch.set_default_dtype(torch.float64)
IN, ENC_LAYERS, ENC_WIDTH, BATCH = 3, 2, 6, 5


def f32(t):
    """t rounded to float32, back in float64."""
    return t.float().double()


def draw(net, gen, small=()):
    """Deterministic float32-representable weights: the peer's own init
    (PyTorch defaults) from the seeded generator, LayerNorms drawn, the
    parameters whose names start with one of small scaled by 0.01."""
    with torch.no_grad():
        for name, p in net.named_parameters():
            if name.startswith(tuple(small)):
                p.mul_(0.01)
            if ".ln" in name and name.endswith(".weight"):
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=gen))
            elif ".ln" in name and name.endswith(".bias"):
                p.copy_(0.2 * torch.randn(p.shape, generator=gen))
            p.copy_(f32(p))


def batch(gen):
    x = f32(torch.randn(BATCH, IN, generator=gen))
    # yn away from the cell edges of every tokenization used here
    yn = f32(0.03 + 0.94 * torch.rand(BATCH, generator=gen))
    return x, yn


def flat(t, digits):
    return [float("%.*g" % (digits, v)) for v in t.detach().reshape(-1).tolist()]


def params(net):
    return [{"name": n, "shape": list(p.shape), "data": flat(p, 9)} for n, p in net.named_parameters()]


def loss_and_grads(net, loss):
    net.zero_grad()
    loss.backward()
    return {"loss": loss.item(),
            "grads": {n: flat(p.grad, 10) for n, p in net.named_parameters()}}


def encoder():
    return pm.mlp_encoder(IN, ENC_WIDTH, ENC_LAYERS)


def case_decoder_norm(gen):
    torch.manual_seed(1)
    enc, d = encoder()
    net = pm.Decoder(enc, d, "norm", B=4, K=3, dmodel=8, layers=2, heads=2)
    draw(net, gen)
    x, yn = batch(gen)
    t = net.tokens(yn)
    c = {"head": "decoder", "vocab": "normalized:base=4,length=3",
         "dec_layers": 2, "dec_width": 8, "dec_heads": 2, "dff": 8,
         "params": params(net), "x": flat(x, 9), "yn": flat(yn, 9),
         "tokens": t.reshape(-1).tolist()}
    c["losses"] = {"unmasked": loss_and_grads(net, net.loss(x, yn, t=t))}
    return c


def case_decoder_unorm(gen):
    torch.manual_seed(2)
    enc, d = encoder()
    net = pm.Decoder(enc, d, "unorm", B=4, E=1, M=2, dmodel=8, layers=1, heads=2, dff=12)
    draw(net, gen, small=("proj.", "tok_emb.", "pos_emb.", "blocks.0.attn.o."))
    x, yn = batch(gen)
    t = net.tokens(yn)
    c = {"head": "decoder", "vocab": "unnormalized:base=4,exponent=1,mantissa=2",
         "dec_layers": 1, "dec_width": 8, "dec_heads": 2, "dff": 12,
         "params": params(net), "x": flat(x, 9), "yn": flat(yn, 9),
         "tokens": t.reshape(-1).tolist(),
         "mask": net.mask.reshape(-1).tolist()}
    c["losses"] = {"unmasked": loss_and_grads(net, net.loss(x, yn, t=t))}
    lp, _ = net._logp(x, yn, masked=True, t=t)
    c["losses"]["masked"] = loss_and_grads(net, -lp.mean())
    return c


def case_simple(gen, head, seed):
    torch.manual_seed(seed)
    enc, d = encoder()
    c = {"head": head}
    if head == "pointwise":
        net = pm.Pointwise(enc, d)
    elif head == "riemann":
        net = pm.Riemann(enc, d, 5)
        c["bins"] = 5
    else:
        net = pm.MDN(enc, d, 3)
        c["components"] = 3
    draw(net, gen)
    x, yn = batch(gen)
    # the Go model takes y = yn - 0.5 in float32; give the peer the yn
    # whose yn - 0.5 is exactly that float32
    y = f32(yn - 0.5)
    yn = y + 0.5
    c.update({"params": params(net), "x": flat(x, 9), "yn": flat(yn, 17), "y": flat(y, 9)})
    if head == "riemann":
        c["bin"] = (yn * 5).floor().clamp(0, 4).long().tolist()
    c["losses"] = {"default": loss_and_grads(net, net.loss(x, yn))}
    return c


def main():
    gen = torch.Generator().manual_seed(20251123)
    cases = {
        "decoder_norm": case_decoder_norm(gen),
        "decoder_unorm": case_decoder_unorm(gen),
        "pointwise": case_simple(gen, "pointwise", 3),
        "riemann": case_simple(gen, "riemann", 4),
        "mdn": case_simple(gen, "mdn", 5),
    }
    for c in cases.values():
        c.update({"in": IN, "enc_layers": ENC_LAYERS, "enc_width": ENC_WIDTH, "batch": BATCH})
        assert all(math.isfinite(l["loss"]) for l in c["losses"].values())
    out = {"generator": "internal/model/testdata/make_golden.py",
           "torch": torch.__version__, "dtype": "float64", "cases": cases}
    path = os.path.join(here, "golden.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
