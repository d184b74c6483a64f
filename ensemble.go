package decoreg

import (
	"context"
	"fmt"

	"decoreg/dist"
	"decoreg/internal/head"
	"decoreg/internal/vec"
	"decoreg/vocab"
)

// NewEnsemble returns the ensemble of members: a Model whose predictive
// distribution for x is the equal mixture (1/N) sum_k p_k(y|x) of the
// members' (see dist.Mixture). Its log-density, CDF and mean are exact
// wherever the members' are, its quantiles are exact for members of one
// tokenization (a walk down the mixture's tree) and found by safeguarded
// false position on the mixture's CDF otherwise, and it samples each value
// from a uniformly chosen member.
// Save writes all members to one file and Load reads it back.
//
// The members must be fitted single models (not ensembles) of the same
// head, trained on the same data: the same number of features with the
// same scaling range of y (the units of NLL_u), and the same names. They
// may differ in anything else: seeds, sizes, tokenizations (an ensemble of
// the trials and seeds of Tune). The ensemble takes its configuration, training
// information, names and input checks from the first member, and shares
// the members' weights but not the models themselves (SetNames on a member
// afterwards, or on the ensemble, leaves the other as it was); it has the first member's temperature, applied to
// every member, or its temperatures per token depth (CalibrateByDepth)
// where they reach the longest member's last token (else none), and no
// map of the CDF (CalibrateByIsotonic; a member's was fitted for that
// member alone). Errors count the members from 1, as model files do.
func NewEnsemble(members ...*Model) (*Model, error) {
	if len(members) == 0 {
		return nil, configErr("Ensemble", "an ensemble needs at least one member")
	}
	if len(members) > MaxEnsemble {
		return nil, configErr("Ensemble", "an ensemble has at most %d members, have %d", MaxEnsemble, len(members))
	}
	first := members[0]
	for k, mk := range members {
		if mk == nil || mk.net == nil {
			return nil, wrapIn(fmt.Sprintf("member %d", k+1), "", ErrNotFitted)
		}
		if len(mk.others) > 0 {
			return nil, configErr("Ensemble", "member %d is itself an ensemble", k+1)
		}
		if err := first.compatible(mk); err != nil {
			return nil, configErr("Ensemble", "member %d: %v", k+1, err)
		}
	}
	e := *first
	e.recal = nil // a member's map was fitted for it alone
	if e.depthT != nil && len(e.depthT) < e.maxTokensOf(members) {
		// The first member's temperatures per depth do not reach the
		// longest member's last tokens: fitted for it alone, dropped.
		e.depthT = nil
		e.info.clearCalibration()
	}
	for _, mk := range members[1:] {
		c := *mk // the caller's model stays its own: SetNames on it leaves the ensemble as it is
		e.others = append(e.others, &c)
	}
	if len(members) > 1 {
		e.info.Members = len(members)
	}
	return &e, nil
}

// compatible says why member o cannot join m's ensemble, or nil.
func (m *Model) compatible(o *Model) error {
	switch {
	case o.cfg.Head != m.cfg.Head:
		return fmt.Errorf("head %s, the first member's is %s", o.cfg.Head, m.cfg.Head)
	case o.Features() != m.Features():
		return fmt.Errorf("%d features, the first member has %d", o.Features(), m.Features())
	case o.units.YMin != m.units.YMin || o.units.YMax != m.units.YMax:
		return fmt.Errorf("target range [%v, %v], the first member's is [%v, %v] (train the members on the same rows)",
			o.units.YMin, o.units.YMax, m.units.YMin, m.units.YMax)
	case o.target != m.target || len(o.features) != len(m.features):
		return fmt.Errorf("different column names from the first member")
	}
	for j := range o.features {
		if o.features[j] != m.features[j] {
			return fmt.Errorf("feature %d is %q, the first member's is %q", j, o.features[j], m.features[j])
		}
	}
	return nil
}

// Members returns an ensemble's members as single models, the first
// member first, each with the ensemble's temperature but not its map of
// the CDF (CalibrateByIsotonic: fitted for the mixture); for a single
// model, itself alone, without its map. They share the ensemble's weights.
// An unfitted model has none.
func (m *Model) Members() []*Model {
	if m == nil || m.net == nil {
		return nil
	}
	first := *m
	first.others, first.recal, first.depthT = nil, nil, cutDepth(m.depthT, m.tok)
	first.info.DepthTemperatures = cutDepth(m.info.DepthTemperatures, m.tok)
	first.info.Members = 0
	out := []*Model{&first}
	for _, o := range m.others {
		c := *o
		c.temp, c.depthT, c.schema = m.temp, cutDepth(m.depthT, c.tok), m.schema
		out = append(out, &c)
	}
	return out
}

// cutDepth is a member's share of its ensemble's temperatures per token
// depth ts: the first ones, one per token of its tokenization tok.
func cutDepth(ts []float64, tok vocab.Tokenizer) []float64 {
	if ts == nil || tok == nil || len(ts) <= tok.Len() {
		return ts
	}
	return ts[:tok.Len()]
}

// maxTokens is the longest tokenization's length among a decoder's
// members (0 for other heads).
func (m *Model) maxTokens() int { return m.maxTokensOf(append([]*Model{m}, m.others...)) }

// maxTokensOf is the longest tokenization's length among members.
func (m *Model) maxTokensOf(members []*Model) int {
	k := 0
	for _, mk := range members {
		if mk.tok != nil {
			k = max(k, mk.tok.Len())
		}
	}
	return k
}

// EnsembleSize is the number of members: 1 for a single model, 0 for an
// unfitted one (nil or the zero Model).
func (m *Model) EnsembleSize() int {
	if m == nil || m.net == nil {
		return 0
	}
	return 1 + len(m.others)
}

// mixDists returns the ensemble's distributions of rows x: each row's
// mixture of the members' distributions, in member order.
func (m *Model) mixDists(ctx context.Context, x []float64, rows int, opts dist.TokenOptions) ([]dist.Distribution, error) {
	members := m.Members()
	per := make([][]dist.Distribution, len(members))
	for k, mk := range members {
		ds, err := mk.memberDists(ctx, x, rows, opts)
		if err != nil {
			return nil, err
		}
		per[k] = ds
	}
	out := make([]dist.Distribution, rows)
	comps := make([]dist.Distribution, len(members))
	for i := range out {
		if i%distChunk == 0 && i > 0 {
			if err := stopped(ctx); err != nil {
				return nil, err
			}
		}
		for k := range members {
			comps[k] = per[k][i]
		}
		out[i] = dist.NewMixture(comps)
	}
	return out, nil
}

// ensembleNLLU returns each row's NLL in u units under the ensemble's
// mixtures ds of rows x (rows x Features()) with targets y: minus the log
// of the average of the members' densities, each member scoring the cell
// its own training forward scores (see nllU); all members share u. For a
// decoder ensemble whose members share a tokenization, or a Riemann one
// whose members share the bins, tokenCE holds each row's cross-entropy per
// token of the mixture's probability of the target's sequence or bin (the
// members' cells are the same); otherwise nil.
func (m *Model) ensembleNLLU(ds []dist.Distribution, x []float64, rows int, y []float64) (nll, tokenCE []float64, err error) {
	members := m.Members()
	per := make([][]float64, len(members))
	var tg0 *head.Targets
	sameTok := m.h.Tokens
	for k, mk := range members {
		comp := make([]dist.Distribution, rows)
		for i, d := range ds {
			comp[i] = d.(*dist.Mixture).Components()[k]
		}
		tg, err := head.Encode(&mk.net.Cfg, mk.units, y)
		if err != nil {
			return nil, nil, err
		}
		if k == 0 {
			tg0 = tg
		} else if m.cfg.Head == HeadRiemann {
			sameTok = sameTok && mk.cfg.Bins == m.cfg.Bins // the same bins: the same cells
		} else if mk.tok == nil || m.tok == nil || mk.tok.Spec() != m.tok.Spec() {
			sameTok = false
		}
		if mk.scaled() || !m.h.Tokens {
			// At a temperature, or for an MDN (whose float32 training
			// loss saturates far outside the training range), the
			// member's float64 distributions score the rows, as a
			// single model's Evaluate does.
			per[k] = mk.nllU(comp, tg, y)
			continue
		}
		// At temperature 1 a token head's training forward scores the
		// rows, as a single model's Evaluate does.
		d := mk.inWidth()
		xs := make([]float32, rows*d)
		if err := mk.standardize(xs, x, rows); err != nil {
			return nil, nil, err
		}
		idx := make([]int, rows)
		for i := range idx {
			idx[i] = i
		}
		per[k] = make([]float64, rows)
		tg.RowNLL(mk.net, xs, d, idx, per[k])
		bad, xb := nonFinite(nil, nil, per[k], 0, x, m.Features())
		if err := mk.refineNLL(per[k], bad, xb, y); err != nil {
			return nil, nil, err
		}
	}
	nll = make([]float64, rows)
	lp := make([]float64, len(members))
	for i := range nll {
		for k := range members {
			lp[k] = -per[k][i]
		}
		nll[i] = -vec.LogMeanExp(lp)
	}
	if sameTok {
		tokenCE = make([]float64, rows)
		for i, v := range nll {
			tokenCE[i] = tg0.TokenCE(i, v)
		}
	}
	return nll, tokenCE, nil
}
