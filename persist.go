package decoreg

import (
	"encoding/json"
	"fmt"

	imodel "decoreg/internal/model"
	"decoreg/internal/modelfile"
)

// fileHeader is the JSON header of a model file.
type fileHeader struct {
	Format string     `json:"format"` // "decoreg-model"
	Config fileConfig `json:"config"`
	XMean  []float64  `json:"x_mean"`
	XStd   []float64  `json:"x_std"`
	YMin   float64    `json:"y_min"`
	YMax   float64    `json:"y_max"`
	Names  []string   `json:"features,omitempty"`
	Target string     `json:"target,omitempty"`
	Info   TrainInfo  `json:"train"`
	Params int        `json:"params"`
}

// fileConfig is Config without its callback, for files.
type fileConfig struct {
	Head         Head    `json:"head"`
	Vocab        string  `json:"vocab,omitempty"`
	RawTarget    bool    `json:"raw_target,omitempty"`
	UnmaskedLoss bool    `json:"unmasked_loss,omitempty"`
	EncLayers    int     `json:"enc_layers"`
	EncWidth     int     `json:"enc_width"`
	DecLayers    int     `json:"dec_layers,omitempty"`
	DecWidth     int     `json:"dec_width,omitempty"`
	DecHeads     int     `json:"dec_heads,omitempty"`
	Bins         int     `json:"bins,omitempty"`
	Components   int     `json:"components,omitempty"`
	Sigmoid      bool    `json:"sigmoid,omitempty"`
	LR           float64 `json:"lr"`
	WeightDecay  float64 `json:"weight_decay,omitempty"`
	AdamW        bool    `json:"adamw,omitempty"`
	BatchSize    int     `json:"batch_size"`
	MaxEpochs    int     `json:"max_epochs"`
	Patience     int     `json:"patience"`
	ValFrac      float64 `json:"val_frac"`
	Seed         uint64  `json:"seed"`
	Threads      int     `json:"threads,omitempty"`
}

func toFileConfig(c Config) fileConfig {
	return fileConfig{c.Head, c.Vocab, c.RawTarget, c.UnmaskedLoss, c.EncLayers, c.EncWidth,
		c.DecLayers, c.DecWidth, c.DecHeads, c.Bins, c.Components, c.Sigmoid, c.LR, c.WeightDecay,
		c.AdamW, c.BatchSize, c.MaxEpochs, c.Patience, c.ValFrac, c.Seed, c.Threads}
}

func (f fileConfig) config() Config {
	return Config{Head: f.Head, Vocab: f.Vocab, RawTarget: f.RawTarget, UnmaskedLoss: f.UnmaskedLoss,
		EncLayers: f.EncLayers, EncWidth: f.EncWidth, DecLayers: f.DecLayers, DecWidth: f.DecWidth,
		DecHeads: f.DecHeads, Bins: f.Bins, Components: f.Components, Sigmoid: f.Sigmoid, LR: f.LR,
		WeightDecay: f.WeightDecay, AdamW: f.AdamW, BatchSize: f.BatchSize, MaxEpochs: f.MaxEpochs,
		Patience: f.Patience, ValFrac: f.ValFrac, Seed: f.Seed, Threads: f.Threads}
}

// Save writes the model to path atomically (see package modelfile for the
// format): weights, architecture, tokenization, scaling statistics and
// training metadata.
func (m *Model) Save(path string) error {
	if m == nil || m.net == nil {
		return ErrNotFitted
	}
	h := fileHeader{Format: "decoreg-model", Config: toFileConfig(m.cfg), XMean: m.xMean, XStd: m.xStd,
		YMin: m.yMin, YMax: m.yMax, Names: m.features, Target: m.target, Info: m.info, Params: m.net.NumParams()}
	hb, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("decoreg: encoding model header: %w", err)
	}
	return modelfile.WriteFile(path, hb, m.net.Params())
}

// Load reads a model written by Save. A file that is not a model, is
// truncated or corrupt, or was written by a newer decoreg gives an error
// naming the file.
func Load(path string) (*Model, error) {
	hb, params, err := modelfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h fileHeader
	if err := json.Unmarshal(hb, &h); err != nil || h.Format != "decoreg-model" {
		return nil, fmt.Errorf("%s: %w (bad header)", path, modelfile.ErrNotModel)
	}
	cfg := DefaultConfig(h.Config.config())
	tok, err := cfg.validate()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m := &Model{cfg: cfg, tok: tok, info: h.Info, xMean: h.XMean, xStd: h.XStd, yMin: h.YMin, yMax: h.YMax,
		features: h.Names, target: h.Target}
	if len(m.xMean) == 0 || len(m.xStd) != len(m.xMean) || !(m.yMax > m.yMin) {
		return nil, fmt.Errorf("%s: %w (bad scaling statistics)", path, modelfile.ErrNotModel)
	}
	net, err := imodel.New(m.netConfig(len(m.xMean)), 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if net.NumParams() != len(params) || h.Params != len(params) {
		return nil, fmt.Errorf("%s: %w: the architecture has %d parameters, the file %d", path, modelfile.ErrNotModel, net.NumParams(), len(params))
	}
	copy(net.Params(), params)
	m.net = net
	return m, nil
}
