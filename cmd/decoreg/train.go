package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"decoreg"
	"decoreg/data"
	"decoreg/dist"
	"decoreg/internal/modelfile"
	"decoreg/internal/outfile"
	"decoreg/vocab"
)

var cmdTrain = &Command{
	Name:      "train",
	UsageLine: "train --data FILE --head HEAD --out MODEL [flags]",
	Short:     "train a model on a CSV file",
	Long: `Train fits a regression model to the rows of a CSV file and saves it.

FILE is CSV with a header line, optionally gzip-compressed; --data - reads
it from standard input, and a FILE that is a pipe, a FIFO or a device
(/dev/stdin, a shell's <(zcat data.csv.gz)) is read once and kept in a
temporary file, as standard input is (so do eval, predict and sample).
Its fields are separated by commas, or by --sep (--sep ';', --sep tab),
and its numbers written with a decimal point, or with a decimal comma by
--decimal , ("1,5"; points may then group thousands, "1.234,5", and a
number with another point is text); eval, predict and sample take the
same flags, which the model does not record.
Every column name must be valid UTF-8. The target is the last named
column, or the column named by --target (an empty --target is refused);
its cells must be numbers (or missing). Every other column is a feature,
unless --features or --drop say otherwise (an empty list, or an empty
entry in one, is refused). A feature column missing in every training row
(unnamed last columns from trailing commas on every line, a blank
column) is left out, with a warning; a column with values but no name in
the header is refused. The columns, their kinds and the target's name are saved
with the model, so that eval, predict and sample match columns by name.

` + naDoc + `

HEAD is one of
	decoder    the paper's head: a causal Transformer decoder over the
	           tokens of y (--vocab, --dec-layers, --dec-width, --dec-heads)
	pointwise  one scalar trained with squared error (--sigmoid)
	riemann    a softmax over uniform bins, a histogram density (--bins)
	mdn        a Gaussian mixture density network (--components)
Flags that belong to another head are an error.

The encoder is an MLP (--enc-layers x --enc-width, ReLU). With --encoder plr
each feature first goes through PLR embeddings (Gorishniy et al., "On
Embeddings for Numerical Features in Tabular Deep Learning", 2022):
--plr-frequencies learned frequencies c, sin and cos of 2*pi*c*x, a linear map
of the feature's own to --plr-dim values and a ReLU; the MLP then takes
features x --plr-dim inputs. The defaults are those of the authors'
rtdl_num_embeddings package. --plr-sigma, the scale of the initial
frequencies, matters most: the package's notes advise trying small values
first, as a value above the best one can spoil training while one below it
is still decent. The --plr-* flags need --encoder plr (or --tune).

With --input-transform ple each feature becomes up to --ple-bins columns
(default 16): the piecewise linear encoding of the same paper over the
training quantiles, column t being clip((x - e[t-1]) / (e[t] - e[t-1]), 0, 1),
each column then standardized; the MLP (or, with --encoder plr, the
embeddings) takes those columns instead of the features. On small,
smooth tables it lifts single models' ranking; see the README.

--dropout P (every head) zeroes each output of every layer of the encoder's
MLP (not the PLR embeddings) with probability P during training (inverted
dropout: the kept ones are scaled by 1/(1-P)); validation, calibration and
prediction never drop, but the training loss printed each epoch is the
dropped network's. The masks follow from --seed, so a seed and thread count
still give one model.

--pretrain pointwise (every head but pointwise) trains in two stages:
first the encoder under the pointwise head (the squared error of the
scaled target, with the same settings, seed and validation rows,
early-stopped on their MSE), then the head alone on that encoder, frozen.
Each stage has its own --epochs and --patience, and --dropout still drops
the frozen encoder's outputs while the head trains. On small tables the
token-by-token loss shapes the encoder worse for ranking than the squared
error does: single decoders of the PLR settings that --tune picks most
ranked 8 small UCI tables markedly better pretrained this way, the
defaults a little, each at a lower test NLL; inside --tune --ensemble 5 it
did not help (see the README). The JSON summary's pretrain object says
how the first stage ended; an interrupt during it saves no model (of an
--ensemble, the members trained before). With --tune, every trial and
member is pretrained.

--ema D (every head) keeps a moving average of the weights, updated after
every optimizer step with decay D and bias-corrected as Adam's moments are
(after t steps, the weights of step s weigh D^(t-s) (1-D) / (1-D^t)):
validation, early stopping and the saved model use the average, while
training goes on from the raw weights (the training loss printed each
epoch is the raw weights'). 0.99 averages over about the last hundred
steps. --tune uses 0.99 unless --ema is given (--ema 0: none); it
ranked small tables better (see the README).

--lr-drops N (every head) cuts the learning rate on plateaus before
stopping: where early stopping would stop (--patience epochs without a
better validation loss), the learning rate is multiplied by
--lr-drop-factor (default 0.2) and training goes on from the current
weights, with the patience started again, up to N times; the plateau after
the last drop stops it, and the best epoch's weights are kept as always
(Keras's ReduceLROnPlateau before its EarlyStopping); with --tune, every
trial and member. The JSON summary's lr_drops counts the drops made. It
rescued single runs that stopped at a bad early plateau, but did not
change the tuned ensembles' ranking (see the README).

--aux-mse W (decoder head) adds W times the squared error of a linear
read-out of the encoder's output, against the scaled target u - 0.5, to the
training loss: a smooth regression signal for the encoder beside the
token-by-token cross-entropy. The read-out is used only in training; the
predictive distribution, the losses printed (training and validation) and
early stopping are the decoder's. The read-out's error is small against
the tokens' cross-entropy, so useful weights are large: 100 ranked small
UCI tables a little better with --encoder plr (see the README).

--soft-targets S (decoder head, normalized tokenization) trains a digit on
the distribution of the next digit of a Gaussian of standard deviation S
around the target (S is a fraction of the target range), truncated to the
cell of the target's prefix, instead of the one target digit, at each
position whose cells are at most 5 S wide (coarser ones keep the target
digit): digits near the target share the mass, and the density is smoothed
at S to about 5 S. Only training changes; the losses printed, early stopping
and the distribution are the decoder's NLL. 0.03 ranked small tables with
continuous targets better and raised the NLL of targets with few distinct
values (see the README); --tune does not search it (it cost the tuned
ensembles NLL; the README).

Features are standardised and y is min-max scaled with the statistics of the
training rows. A fraction --val-frac of them is held out for early stopping:
training stops when the validation loss has not improved for --patience
epochs (or after --epochs) and the best weights are kept. --val-frac 0 trains
on every row for exactly --epochs epochs. (In the library this is a negative
decoreg.Config.ValFrac; ValFrac 0 there means the default, 0.1.)

A 0 for a size, a count or --lr is refused: the defaults are the values
shown below.

With --test-mask FILE --split K the model trains on the rows that are NOT
test rows of split K (FILE as in the UCI benchmark: header split0,...,splitN,
one 0/1 value per data row and split).

Progress goes to standard error: a progress bar (epoch, losses, a "*" on the
best epoch so far, and an upper bound on the time left) when it is a
terminal, one line per epoch otherwise, nothing with --quiet. When training
ends, one JSON line on standard output summarises it: model, head, rows,
params, epochs (the epochs completed), best_epoch, val_loss (null without
validation; with --tune, a normalized decoder's at --tune-resolution; with
--stop-by depth, calibrated per depth; with --stop-by crps, the CRPS), stopped ("early-stopping", "max-epochs" or "cancelled", as the
model file records it; with --tune the chosen trial's, which may also be
"halved" or "budget"; "cancelled" for an --ensemble interrupted before
all its members were trained, however each kept member stopped), lr_drops (with --lr-drops, the drops made, where
any) and seconds; with --calibrate also temperature,
calibrate_by, val_nll_uncalibrated and val_nll_calibrated (with
--calibrate-by pit or isotonic also val_pit_ece_uncalibrated and
val_pit_ece_calibrated; with isotonic also isotonic_segments and
isotonic_identity_weight; with depth depth_temperatures in place of
temperature);
with --ensemble also members (epochs, best_epoch and val_loss are then
the first member's, the best trial with --tune; the
val_nll_* fields are the mixture's);
with --tune also tune (trials, chosen: the chosen trials' numbers, cut;
with --ensemble, unless --ensemble-from trials, also members_cut,
members_left_out and seeds_chosen, and soft_seeds_chosen and
ple_seeds_chosen where soft or ple seeds' members were planned); skipped_rows when rows with a
missing target were left out; with --pretrain also pretrain (the first
stage's epochs, best_epoch, best_val_loss, the validation MSE of the
scaled target or null without validation rows, stopped and seconds; the
first member's, or the best trial's).

--ensemble N trains N members with seeds --seed, --seed+1, ...: their
initialisations and mini-batches differ, and all hold out the validation
rows of --seed. The model file holds all of them, and the predictive
distribution is their equal mixture: its density, CDF and mean are the
averages of the members', its quantiles exact (a walk down the mixture's
tree for members of one tokenization, else found by solving its CDF),
its samples drawn from a uniformly chosen member. With --calibrate one
temperature is fitted for the mixture. An interrupt keeps the members
finished so far (and the best epoch of the one in training).

--tune chooses the settings by validation loss within --budget (default
3m): it trains the given settings (trial 1: "defaults" in the trial table
where they are the head's defaults, else "given") and --trials-1 others (default
12 in all) drawn with --seed from the paper's grid: encoder 2-5 layers x
width 256, 512 or 2048, learning rate 1e-4 or 5e-4, input transform
(standard, robust or quantile; ple comes in by --ple-seeds, below),
encoder (mlp, or plr with the --plr-* values, which --tune takes without
--encoder plr and does not search), and the head's own settings
(decoder: tokenization base and length, and the decoder size; riemann:
bins; mdn: components; pointwise: weight decay). By
successive halving, every trial trains 3 epochs (the given settings first,
then the cheapest; one that would end past the first third of the budget
is skipped), the best third goes on to 9 in all, the best third of
those to 27, and so on until they stop early or reach --epochs; the given
settings are never dropped. All trials hold out the same validation rows,
and every trial and member keeps the moving average of its weights at
--ema 0.99 unless --ema is given.
A decoder of the normalized tokenization is scored there at a common
resolution (--tune-resolution, default 2^-18 of the target range): each
row by its density averaged over the deepest cell of its target's tokens
at least that wide, so that on targets that take a few values a finer
tokenization does not win by its cells' width alone; the same score
early-stops the trials and seeds and chooses the ensemble's members.
The best trial is saved; with --ensemble N, N-1 more models of its
settings (seeds --seed+1, ..., the same validation rows) are trained after
the search, each to early stopping within a second --budget shared among
them (equally, unless an equal share is less than the time the best trial
took and a quarter more: then each in turn gets that time while the budget
lasts, and those after get none; one it stops keeps its best epoch), and
up to N members are chosen greedily among the trials and them
(--ensemble-from all, the default): each one added lowers the validation
NLL of the mixture. Where the best trial is a decoder of the normalized
tokenization, all also trains N-1 soft seeds' members (--soft-seeds S,
default 0.03: those settings with --soft-targets S, seeds --seed+N, ...)
with what the plain ones left of the second budget, and offers them to
the same selection: per-digit soft targets rank better on small smooth
tables, and the selection keeps them only where they lower the validation
NLL. With --ple-seeds K, where the best trial's input transform is not
ple (and the head not pointwise), all then trains K ple seeds' members
(those settings with --input-transform ple at --ple-bins) for the same
selection; where none are trained (the best trial is ple already, or
their network on the encoding would be larger than allowed or than
memory holds), standard error says why. --ensemble-from trials chooses among the trials alone
(no second phase; --trials must be at least N); --ensemble-from seeds takes the best trial and its
seeds (a seed the budget stopped only if it lowers the mixture's
validation NLL). The pointwise head, with no
likelihood to choose by, takes the best N trials by validation loss
(trials) or the best trial and every seed that finished an epoch (all,
seeds). The trial history is saved in the model file; a table of the trials (validation loss,
epochs, seconds, status, settings) goes to standard error. The same data,
flags, --seed and --threads give the same choice unless the budget runs
out first or skips a trial at the speed it measured (the table then says
so, and the summary's tune.cut; with --ensemble, also the same members
unless the second budget stops one: members_cut).

--calibrate fits one temperature T after early stopping, on (up to 4,000
of) the validation rows: the decoder's and the Riemann head's logits are
divided by T, the MDN's standard deviations multiplied by it (T > 1 widens
p(y|x), T < 1 sharpens it; T in [0.05, 20]). --calibrate-by chooses what T
minimises: nll (the default) the validation NLL, by golden-section search;
pit the validation rows' pit_ece (as eval reports it: how far their PIT
values F_T(y) are from uniform), on a grid of 97 log-spaced temperatures
refined around the best (ties go to the T nearest 1), which aims at the
coverage of central intervals of every level; isotonic fits T by NLL,
then recalibrates the CDF (Kuleshov et al., ICML 2018): the validation
rows' PIT values p_i = F_T(y_i) give a monotone map R of [0, 1] (their
empirical CDF at 10 equal segments, mixed with the identity by at least
0.05, more for fewer than 380 rows: 0.4 for 30), and the predictive CDF
becomes R(F_T(y)), its quantiles F_T^-1(R^-1(q)), its density
R'(F_T(y)) p_T(y); its mean stays exact. A map, unlike T, corrects the
shape of miscalibration (intervals too wide in the middle and too narrow
in the tails). pit and isotonic need a tree tokenization for the decoder
(not hamming or repeat). depth (decoder head only) fits a temperature per
token depth by the validation NLL: the logits of y's k-th token (sign,
exponent, then ever finer digits) are divided by their own T_k in
[min(1, T), 20], starting from nll's T at every depth and improving one
depth at a time (none sharper than both the model and T, which on a few
rows would gain little and cost rare targets dearly; a decoder
trained long overfits its finer digits first: one T would widen the
coarse digits too); the summary's depth_temperatures lists them, and its
temperature is absent. --calibrate-by without --calibrate is refused.
The model file stores T (or the T_k), the objective and the map; predict, sample, eval
and serve use them (sample by inverse CDF: a recalibrated model refuses
--temperature, --top-k and --top-p), and eval reports the scores without
them too.

--stop-by depth (decoder head, at least 20 validation rows) early-stops on the
validation NLL at the temperatures per token depth that minimise it on the
validation rows, fitted anew each epoch as --calibrate-by depth fits them
for one model (from the epoch's teacher-forced logits: the one T in
[0.05, 20], then each depth alone in [min(1, T), 20]), in
place of the plain validation NLL; --tune then compares its trials by it
too. A decoder's finer digits overfit before its coarser ones: early
stopping on the plain NLL stops when they do, while by depth training goes
on as long as the distribution calibrated per depth improves. Use it with
--calibrate --calibrate-by depth, which stores such temperatures (without
them, the kept epoch's plain distribution may be poorly calibrated).

--stop-by crps (every head but pointwise; a decoder's tokenization must be
a tree, normalized or unnormalized without repeat, and bounded: not
--unbounded; an MDN of at most 256 components) early-stops on the mean CRPS
of the validation rows (at most the first 1,000 of them), in units of the
target range (the training targets' or --target-range), in place of the
NLL; --tune then compares its trials by it, and --ensemble with --tune
chooses its members by the CRPS of their mixture (on those rows, or fewer
where many bins or components make it costly). The CRPS (the integral of
(F(t) - 1{y <= t})^2, which for a point prediction is its absolute error)
weighs how far the predictive mass lies from the target: a decoder trains
on while its coarser digits improve, though its finer ones begin to
overfit. A decoder's CRPS is that of the cells its mean expands (as eval's
crps, whose crps_bound says how close). With fixed settings on small
tables it ranked better and scored a lower CRPS, at some cost in NLL; in
--tune's ensembles it gained nothing (see the README). Each epoch also
predicts those rows and scores them: for the normalized decoder and the
default bins and components, a fraction of a second per 1,000 rows on one
core; more with many bins, with many components (an MDN's CRPS grows with
their square) and for the unnormalized decoder, whose expansions are deep
(seconds). Interrupting stops the scoring between chunks of rows; an
interrupted --tune then keeps the members chosen so far (the best trial
alone when the mixtures' scoring had not finished).

Interrupting (Ctrl-C, that is SIGINT, or SIGTERM or SIGHUP) stops training at the next batch
and saves the best model so far; the command then prints
"interrupted: saved best model from epoch N" on standard error, the summary
on standard output, and exits with status 0. Interrupting before the first
epoch has ended (or while --data is still being read) saves nothing and
ends by the signal (a shell's status 130 for Ctrl-C), as every command
stopped by an interrupt does. Interrupting
--calibrate, after training has ended, stops it and saves the trained model,
not calibrated ("interrupted during --calibrate, ..."). The summary then
says "interrupted": true. A Ctrl-C while a model whose training was not
interrupted is being written does not abandon it: the write is finished
(unlike other outputs, below). A second Ctrl-C kills the process at once,
or, while the model is being written, abandons the write (an existing
MODEL is untouched); the same signal within 50 ms of the first is its
echo, not a second (timeout -s INT sends it to the command and then to
its process group: one timeout saves the model).

` + outDoc + `
With --out - (or /dev/stdout) the summary goes to standard error.

The same data, flags, --seed and --threads give the same weights.

Exit status: 0 on success, 2 for bad flags or bad input data (the message
names the flag, or the file with its line and column), 1 when training fails
(for example when the loss diverges: try a smaller --lr); interrupted
before a model could be saved, it ends by the signal (130 for Ctrl-C).

Examples:

	decoreg train --data train.csv --head decoder --out m.model
	decoreg train --data housing.csv.gz --target price --head mdn --components 10 --out mdn.model
	decoreg train --data data.csv --head decoder --vocab unnormalized:base=10,exponent=1,mantissa=4 \
		--enc-layers 3 --enc-width 512 --epochs 100 --out m.model
	decoreg train --data data.csv --head riemann --encoder plr --plr-sigma 0.1 --out plr.model
	decoreg train --data uci/concrete/data.csv.gz --test-mask uci/concrete/test_mask.csv.gz --split 0 \
		--head riemann --bins 512 --quiet --out concrete0.model`,
	Run: runTrain,
}

// trainF holds train's flags.
var trainF trainFlags

func init() { trainF.register(&cmdTrain.Flag) }

// trainFlags are train's flags.
type trainFlags struct {
	// numberLike are the columns warnNumberLike warned about (set by
	// trainFrame), which warnNumericLevels leaves to it, and markers the
	// missing-value markers it offered to --na, in markerCols.
	numberLike, markers, markerCols []string

	data, target, out, head, vocab string
	targetRange                    string
	split                          splitFlags
	dialect                        dialectFlags

	encLayers, encWidth           int
	decLayers, decWidth, decHeads int
	bins, components              int
	lr, weightDecay, valFrac      float64
	adamw                         bool
	ema                           float64
	batch, epochs, patience       int
	lrDrops                       int
	lrDropFactor                  float64
	seed                          uint64
	threads                       int
	unmaskedLoss, rawTarget       bool
	auxMSE                        float64
	softTargets                   float64
	unbounded                     bool
	sigmoid, quiet                bool
	calibrate                     bool
	calibrateBy                   string
	stopBy                        string
	inputTransform                string
	pleBins                       int
	ensemble                      int
	tune                          bool
	budget                        time.Duration
	trials                        int
	ensembleFrom                  string
	softSeeds                     float64
	pleSeeds                      int
	tuneResolution                float64
	encoder                       string
	plrFrequencies, plrDim        int
	plrSigma                      float64
	dropout                       float64
	pretrain                      string
	na, drop, features            string
	maxLevels                     int
}

func (f *trainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.data, "data", "", "training data: CSV `FILE` with a header, optionally gzipped (a pipe or FIFO is read once), or - for standard input (required)")
	fs.StringVar(&f.target, "target", "", "the target column's `NAME` (default: the last named column)")
	fs.StringVar(&f.targetRange, "target-range", "", "scale y by the fixed range `LO,HI` (e.g. 0,1) instead of the training targets' min and max; targets outside it are refused")
	fs.StringVar(&f.out, "out", "", "write the model to `MODEL`, or - for standard output (required); "+outHelp)
	fs.StringVar(&f.head, "head", string(decoreg.HeadDecoder), "regression `HEAD`: decoder, pointwise, riemann or mdn")
	fs.StringVar(&f.vocab, "vocab", decoreg.DefaultVocab, "decoder tokenization `SPEC`, as in 'decoreg tokenize'")
	f.split.register(fs, "train on the rows that are not test rows of --split")
	f.dialect.register(fs)
	fs.IntVar(&f.encLayers, "enc-layers", decoreg.DefaultEncLayers, "encoder MLP layers")
	fs.IntVar(&f.encWidth, "enc-width", decoreg.DefaultEncWidth, "encoder MLP width")
	fs.StringVar(&f.encoder, "encoder", decoreg.EncoderMLP, "`ENCODER` of the features: mlp, or plr (periodic embeddings of each feature before the MLP; --plr-frequencies, --plr-dim, --plr-sigma)")
	fs.IntVar(&f.plrFrequencies, "plr-frequencies", decoreg.DefaultPLRFrequencies, "learned frequencies per feature (--encoder plr, or --tune's plr trials)")
	fs.IntVar(&f.plrDim, "plr-dim", decoreg.DefaultPLRDim, "embedding values per feature, the MLP's inputs (--encoder plr, or --tune's plr trials)")
	fs.StringVar(&f.pretrain, "pretrain", "", "`STAGE` before the head's training: pointwise (train the encoder under the pointwise head, squared error, then the head on it frozen; every head but pointwise); \"\" for none")
	fs.Float64Var(&f.dropout, "dropout", 0, "the probability `P` (0 to 0.9) with which training zeroes each output of every layer of the encoder's MLP (inverted dropout; prediction never drops; 0: none)")
	fs.Float64Var(&f.plrSigma, "plr-sigma", decoreg.DefaultPLRSigma, "scale (sd) of the initial frequencies, in standardised feature units (--encoder plr, or --tune's plr trials)")
	fs.IntVar(&f.decLayers, "dec-layers", decoreg.DefaultDecLayers, "decoder blocks (decoder head)")
	fs.IntVar(&f.decWidth, "dec-width", decoreg.DefaultDecWidth, "decoder model width (decoder head)")
	fs.IntVar(&f.decHeads, "dec-heads", decoreg.DefaultDecHeads, "decoder attention heads; must divide --dec-width (decoder head)")
	fs.IntVar(&f.bins, "bins", decoreg.DefaultBins, "histogram bins (riemann head)")
	fs.IntVar(&f.components, "components", decoreg.DefaultComponents, "mixture components (mdn head)")
	fs.Float64Var(&f.lr, "lr", decoreg.DefaultLR, "Adam learning rate")
	fs.Float64Var(&f.weightDecay, "weight-decay", 0, "L2 weight decay (decoupled with --adamw)")
	fs.BoolVar(&f.adamw, "adamw", false, "decoupled weight decay (AdamW)")
	fs.Float64Var(&f.ema, "ema", 0, "the `DECAY` per step, in [0, 1), of a moving average of the weights that validation, early stopping and the saved model use (0: none; with --tune, unset: 0.99)")
	fs.IntVar(&f.batch, "batch", decoreg.DefaultBatchSize, "mini-batch size")
	fs.IntVar(&f.epochs, "epochs", decoreg.DefaultMaxEpochs, "maximum number of epochs")
	fs.IntVar(&f.patience, "patience", decoreg.DefaultPatience, "epochs without a better validation loss before stopping")
	fs.IntVar(&f.lrDrops, "lr-drops", 0, "on a plateau (--patience epochs without a better validation loss), multiply the learning rate by --lr-drop-factor and go on, up to `N` times (0 to 10) before stopping (0: stop at the first plateau)")
	fs.Float64Var(&f.lrDropFactor, "lr-drop-factor", decoreg.DefaultLRDropFactor, "the `FACTOR`, in (0, 1), by which --lr-drops multiplies the learning rate")
	fs.StringVar(&f.stopBy, "stop-by", decoreg.StopByNLL, "the validation `SCORE` of early stopping (and of --tune's comparisons; not for the pointwise head, which stops on the validation MSE): nll, depth (decoder: the NLL at the temperatures per token depth fitted on the validation rows each epoch, as --calibrate-by depth fits them; use the two together) or crps (the mean CRPS)")
	fs.Float64Var(&f.valFrac, "val-frac", decoreg.DefaultValFrac, "fraction of the training rows held out for early stopping, in [0, 1); 0: no validation split, train for --epochs epochs")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed (initialisation, validation split, batch order)")
	fs.IntVar(&f.threads, "threads", 0, "threads of the matrix kernels (0: every core; at most 4096)")
	fs.BoolVar(&f.unmaskedLoss, "unmasked-loss", false, "train the decoder with the softmax over the whole vocabulary (as the reference code), not over the valid tokens")
	fs.Float64Var(&f.softTargets, "soft-targets", 0, "decoder, normalized tokenization: train each digit whose cells are at most 5 S wide on the distribution of a Gaussian of standard deviation `S` (a fraction of the target range, at most 10) around the target instead of the one target digit; training only (0: none)")
	fs.Float64Var(&f.auxMSE, "aux-mse", 0, "decoder: add `W` (at most 1e6) times the squared error of a linear read-out of the encoder (against u - 0.5) to the training loss, a regression signal for the encoder; training only (0: none)")
	fs.StringVar(&f.inputTransform, "input-transform", data.TransformStandard, "map each feature before the encoder: standard ((x - mean) / sd), robust ((x - median) / IQR), quantile (normal scores of the training ECDF; skewed features and outliers) or ple (piecewise linear encoding over quantile bins, --ple-bins columns per feature; small tables)")
	fs.IntVar(&f.pleBins, "ple-bins", data.DefaultPLEBins, "--input-transform ple: the most bins (columns) per feature, 2 to 256")
	fs.BoolVar(&f.calibrate, "calibrate", false, "after training, fit a temperature on the validation rows (by --calibrate-by; not for pointwise); predictions use it, eval reports before and after")
	fs.StringVar(&f.calibrateBy, "calibrate-by", decoreg.CalibrateByNLL, "with --calibrate: the `OBJECTIVE`, nll (the temperature minimising the validation NLL), pit (validation PIT values closest to uniform: interval coverage), isotonic (the nll temperature, then a monotone map of the CDF fitted to the validation PIT values) or depth (decoder: a temperature per token depth, by the validation NLL); pit and isotonic need a tree tokenization for decoders")
	fs.IntVar(&f.ensemble, "ensemble", 1, "train `N` members (seeds --seed, --seed+1, ...; the same validation rows) and predict with their equal mixture; 1: one model")
	fs.BoolVar(&f.tune, "tune", false, "choose the settings by validation loss: the given ones and --trials-1 from the paper's grid, with successive halving, within --budget")
	fs.DurationVar(&f.budget, "budget", decoreg.DefaultTuneBudget, "with --tune: the wall time `DURATION` of the search (e.g. 90s, 5m); with --ensemble N (unless --ensemble-from trials), the seeds' members get as long again after it")
	fs.IntVar(&f.trials, "trials", decoreg.DefaultTuneTrials, "with --tune: the number of settings tried")
	fs.StringVar(&f.ensembleFrom, "ensemble-from", decoreg.DefaultEnsembleFrom, "with --tune and --ensemble N: the members' `SOURCE`: all (up to N chosen greedily by the mixture's validation NLL (at --tune-resolution; the CRPS with --stop-by crps) among the trials and N-1 more seeds of the best trial's settings, trained after the search, and for a normalized decoder N-1 soft seeds too: --soft-seeds), trials (among the trials alone) or seeds (the best trial and those seeds)")
	fs.IntVar(&f.pleSeeds, "ple-seeds", 0, "with --tune, --ensemble N and --ensemble-from all, where the best trial's input transform is not ple: `K` more seeds' members of its settings with --input-transform ple (at --ple-bins), trained after the plain and soft ones and offered to the greedy selection with them; 0 for none")
	fs.Float64Var(&f.softSeeds, "soft-seeds", decoreg.DefaultSoftSeeds, "with --tune, --ensemble N and --ensemble-from all, where the best trial is a normalized decoder: the --soft-targets `S` of N-1 more seeds' members, trained after the plain ones with what is left of the second --budget and offered to the greedy selection with them; 0 for none")
	fs.Float64Var(&f.tuneResolution, "tune-resolution", decoreg.DefaultTuneResolution, "with --tune: the narrowest cell, as a share of the target range, at which the trials, seeds and ensembles are compared and early-stopped: a decoder's validation row is scored by its density averaged over the deepest cell of its target's tokens at least this wide (on targets that take a few values, finer cells would win by their width alone); for the decoder with a normalized --vocab, where every trial is one; 0 compares plain NLLs")
	fs.BoolVar(&f.unbounded, "unbounded", false, "unnormalized decoder: do not restrict its cells to the training range widened by 10% (the paper's behaviour; rare huge samples then sway the mean)")
	fs.BoolVar(&f.rawTarget, "raw-target", false, "unnormalized decoder: tokenize the original y instead of the scaled one")
	fs.BoolVar(&f.sigmoid, "sigmoid", false, "pointwise head: squash the output to the training range")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress")
	fs.StringVar(&f.na, "na", strings.Join(data.DefaultNA, ","), "comma-separated `CELLS` read as missing, besides empty cells (matched exactly, spaces around a cell trimmed, a number matching the cells of its value; one holding a comma or a double quote in double quotes, as in a CSV line); \"\" for none")
	fs.IntVar(&f.maxLevels, "max-levels", data.DefaultMaxLevels, fmt.Sprintf("the most distinct values (levels) of a categorical (text) column, 1 to %d", data.MaxMaxLevels))
	fs.StringVar(&f.drop, "drop", "", "comma-separated `COLUMNS` not to use as features")
	fs.StringVar(&f.features, "features", "", "comma-separated feature `COLUMNS` to use (default: every column but the target)")
}

// headFlags lists the flags that only one head takes.
var headFlags = []struct {
	head  decoreg.Head
	flags []string
}{
	{decoreg.HeadDecoder, []string{"vocab", "dec-layers", "dec-width", "dec-heads", "unmasked-loss", "raw-target", "unbounded", "aux-mse", "soft-targets"}},
	{decoreg.HeadRiemann, []string{"bins"}},
	{decoreg.HeadMDN, []string{"components"}},
	{decoreg.HeadPointwise, []string{"sigmoid"}},
}

// plrFlags are the flags that only --encoder plr takes.
var plrFlags = []string{"plr-frequencies", "plr-dim", "plr-sigma"}

// config returns the training configuration of the flags, checked by
// decoreg.Config.Validate; every problem names its flag.
func (f *trainFlags) config(fs *flag.FlagSet) (decoreg.Config, error) {
	const name = "train"
	head := decoreg.Head(f.head)
	if isSet(fs, "ple-bins") && (f.pleBins < 2 || f.pleBins > data.MaxPLEBins) {
		// Before refuseZero, so that 0 gets the range as 1 does.
		return decoreg.Config{}, inputf(name, "--ple-bins: the ple input transform needs 2 to %d bins per feature, have %d", data.MaxPLEBins, f.pleBins)
	}
	if err := refuseZero(name, fs); err != nil {
		return decoreg.Config{}, err
	}
	vf, err := valFrac(name, f.valFrac)
	if err != nil {
		return decoreg.Config{}, err
	}
	if f.calibrate && vf < 0 {
		return decoreg.Config{}, inputf(name, "--calibrate fits on the validation rows: --val-frac must be > 0")
	}
	if vf < 0 && isSet(fs, "patience") {
		return decoreg.Config{}, inputf(name, "--patience is for early stopping, which needs validation rows: with --val-frac 0, training runs exactly --epochs epochs")
	}
	if vf < 0 && f.lrDrops > 0 {
		return decoreg.Config{}, inputf(name, "--lr-drops cuts the learning rate on a plateau of the validation loss, which needs validation rows: --val-frac must be > 0")
	}
	if isSet(fs, "lr-drop-factor") && f.lrDrops == 0 {
		return decoreg.Config{}, inputf(name, "--lr-drop-factor is for --lr-drops (add --lr-drops N)")
	}
	if isSet(fs, "calibrate-by") && !f.calibrate {
		return decoreg.Config{}, inputf(name, "--calibrate-by is for --calibrate (add --calibrate)")
	}
	if vf < 0 && isSet(fs, "stop-by") {
		return decoreg.Config{}, inputf(name, "--stop-by is for early stopping, which needs validation rows: --val-frac must be > 0")
	}
	if head == decoreg.HeadPointwise && isSet(fs, "stop-by") && (f.stopBy == decoreg.StopByNLL || f.stopBy == "") {
		// Ignored: the pointwise head has no likelihood (its depth and
		// crps are refused by the library).
		given := f.stopBy
		if given == "" {
			given = `""`
		}
		return decoreg.Config{}, inputf(name, "--stop-by %s is for the heads with a distribution: the pointwise head early-stops on the validation MSE", given)
	}
	c := decoreg.Config{
		Head: head, EncLayers: f.encLayers, EncWidth: f.encWidth,
		LR: f.lr, WeightDecay: f.weightDecay, AdamW: f.adamw, EMA: f.ema,
		BatchSize: f.batch, MaxEpochs: f.epochs, Patience: f.patience,
		ValFrac: vf, Seed: f.seed, Threads: f.threads, Calibrate: f.calibrate, InputTransform: f.inputTransform,
		Ensemble: f.ensemble, Encoder: f.encoder, Dropout: f.dropout, LRDrops: f.lrDrops, Pretrain: f.pretrain,
	}
	if c.LRDrops > 0 {
		c.LRDropFactor = f.lrDropFactor
	}
	if f.calibrate && f.calibrateBy != decoreg.CalibrateByNLL {
		c.CalibrateBy = f.calibrateBy // the default objective stays "" in the Config
	}
	if f.stopBy != decoreg.StopByNLL {
		c.StopBy = f.stopBy // as CalibrateBy: the default stays ""
	}
	if f.encoder == decoreg.EncoderPLR {
		c.PLRFrequencies, c.PLRDim, c.PLRSigma = f.plrFrequencies, f.plrDim, f.plrSigma
	}
	switch {
	case f.inputTransform == data.TransformPLE || f.tune && f.pleSeeds > 0 && isSet(fs, "ple-bins"):
		c.PLEBins = f.pleBins // with --ple-seeds, for those members
	case isSet(fs, "ple-bins"):
		return c, inputf(name, "--ple-bins is for --input-transform ple (or --tune with --ple-seeds K, whose members it encodes)")
	}
	if !f.tune {
		for _, fl := range []string{"budget", "trials", "ensemble-from", "soft-seeds", "ple-seeds", "tune-resolution"} {
			if isSet(fs, fl) {
				return c, inputf(name, "--%s is for --tune", fl)
			}
		}
	} else {
		if !(f.budget > 0) {
			return c, inputf(name, "--budget must be > 0, have %v", f.budget)
		}
		if f.trials < 1 || f.trials > decoreg.MaxTuneTrials {
			return c, inputf(name, "--trials must be in [1, %d], have %d", decoreg.MaxTuneTrials, f.trials)
		}
		if vf < 0 {
			return c, inputf(name, "--tune chooses by validation loss: --val-frac must be > 0")
		}
		if f.ensembleFrom != decoreg.EnsembleFromTrials && f.ensembleFrom != decoreg.EnsembleFromSeeds && f.ensembleFrom != decoreg.EnsembleFromAll {
			return c, inputf(name, "--ensemble-from must be %s, %s or %s, have %s", decoreg.EnsembleFromTrials, decoreg.EnsembleFromSeeds, decoreg.EnsembleFromAll, strconv.Quote(f.ensembleFrom))
		}
		if isSet(fs, "ensemble-from") && f.ensemble < 2 {
			return c, inputf(name, "--ensemble-from is for --ensemble N with N >= 2")
		}
		if !(f.softSeeds >= 0 && f.softSeeds <= decoreg.MaxSoftTargets) {
			return c, inputf(name, "--soft-seeds must be in [0, %g] (a fraction of the target range; 0 for none), have %v", float64(decoreg.MaxSoftTargets), f.softSeeds)
		}
		if !(f.tuneResolution >= 0 && f.tuneResolution < 1) {
			return c, inputf(name, "--tune-resolution must be in [0, 1) (a share of the target range; 0 for plain NLLs), have %v", f.tuneResolution)
		}
		if isSet(fs, "tune-resolution") && f.tuneResolution > 0 && f.stopBy == decoreg.StopByCRPS {
			return c, inputf(name, "--tune-resolution is the resolution of the NLL comparisons: with --stop-by crps the trials and members are compared by their CRPS")
		}
		if isSet(fs, "tune-resolution") && f.tuneResolution > 0 && (head != decoreg.HeadDecoder || !normalizedVocab(f.vocab)) {
			return c, inputf(name, "--tune-resolution is for the decoder with a normalized --vocab (without repeat=): other heads and tokenizations are compared by their plain NLL")
		}
		if isSet(fs, "soft-seeds") && f.softSeeds > 0 {
			switch {
			case f.ensemble < 2 || f.ensembleFrom != decoreg.EnsembleFromAll:
				return c, inputf(name, "--soft-seeds is for --ensemble N with N >= 2 and --ensemble-from all")
			case head != decoreg.HeadDecoder || !normalizedVocab(f.vocab):
				return c, inputf(name, "--soft-seeds is for the decoder with a normalized --vocab (soft targets are defined on its cells)")
			case f.softTargets > 0:
				return c, inputf(name, "--soft-seeds with --soft-targets: every trial already has soft targets, so no soft seeds are trained; give one of them")
			}
		}
		if f.pleSeeds < 0 || f.pleSeeds > decoreg.MaxEnsemble {
			return c, inputf(name, "--ple-seeds must be 0 (none) to %d, have %d", decoreg.MaxEnsemble, f.pleSeeds)
		}
		if f.pleSeeds > 0 {
			switch {
			case f.ensemble < 2 || f.ensembleFrom != decoreg.EnsembleFromAll:
				return c, inputf(name, "--ple-seeds is for --ensemble N with N >= 2 and --ensemble-from all")
			case head == decoreg.HeadPointwise:
				return c, inputf(name, "--ple-seeds is for the heads with a likelihood to select by (not pointwise)")
			}
		}
		if f.ensemble > f.trials && f.ensembleFrom == decoreg.EnsembleFromTrials {
			return c, inputf(name, "--ensemble %d --ensemble-from trials chooses up to %d members among the trials of --tune: --trials must be at least %d, have %d (or --ensemble-from seeds or all)", f.ensemble, f.ensemble, f.ensemble, f.trials)
		}
	}
	if f.ensemble < 1 || f.ensemble > decoreg.MaxEnsemble {
		return c, inputf(name, "--ensemble must be 1 (one model) to %d members, have %d", decoreg.MaxEnsemble, f.ensemble)
	}
	if f.ensemble > 1 && f.seed > math.MaxUint64-uint64(f.ensemble-1) && !f.tune {
		// (--tune's members' seeds are checked by the library, which
		// knows how many it may train: none from the trials, more with
		// soft and ple seeds.)
		return c, inputf(name, "--seed %d leaves no room for the seeds of --ensemble %d members (seed + member)", f.seed, f.ensemble)
	}
	if f.targetRange != "" {
		lo, hi, ok := strings.Cut(f.targetRange, ",")
		var err1, err2 error
		if ok {
			c.TargetMin, err1 = strconv.ParseFloat(strings.TrimSpace(lo), 64)
			c.TargetMax, err2 = strconv.ParseFloat(strings.TrimSpace(hi), 64)
		}
		// !(LO < HI) also refuses NaN ends and 0,0 (no fixed range).
		if !ok || err1 != nil || err2 != nil || !(c.TargetMin < c.TargetMax) || math.IsInf(c.TargetMax-c.TargetMin, 0) {
			return c, inputf(name, "--target-range: want LO,HI, finite with LO < HI and a difference that is finite, such as 0,1; have %s", strconv.Quote(f.targetRange))
		}
		// -0 is 0 (the model and its messages wrote the range [-0, 1]).
		c.TargetMin, c.TargetMax = c.TargetMin+0, c.TargetMax+0
	}
	switch head {
	case decoreg.HeadDecoder:
		c.Vocab = f.vocab
		c.DecLayers, c.DecWidth, c.DecHeads = f.decLayers, f.decWidth, f.decHeads
		c.UnmaskedLoss, c.RawTarget, c.Unbounded = f.unmaskedLoss, f.rawTarget, f.unbounded
		c.AuxMSE, c.SoftTargets = f.auxMSE, f.softTargets
	case decoreg.HeadRiemann:
		c.Bins = f.bins
	case decoreg.HeadMDN:
		c.Components = f.components
	case decoreg.HeadPointwise:
		c.Sigmoid = f.sigmoid
	}
	v := c
	if f.tune {
		v.Ensemble = 0 // the room its members' seeds need is Tune's to check
	}
	if err := v.Validate(); err != nil {
		if ferr, ok := configErr(name, err); ok {
			return c, ferr
		}
		return c, inputf(name, "%v", err)
	}
	for _, hf := range headFlags {
		if hf.head == head {
			continue
		}
		for _, fl := range hf.flags {
			if isSet(fs, fl) {
				return c, inputf(name, "--%s is for --head %s, not %s", fl, hf.head, head)
			}
		}
	}
	if c.Encoder != decoreg.EncoderPLR && !f.tune {
		// (--tune's trials that draw the plr encoder take them.)
		for _, fl := range plrFlags {
			if isSet(fs, fl) {
				return c, inputf(name, "--%s is for --encoder plr (or --tune, whose trials may draw it), not %s", fl, c.Encoder)
			}
		}
	}
	if c.RawTarget {
		if tok, _ := vocab.Parse(c.Vocab); !isUnnormalized(tok) {
			return c, inputf(name, "--raw-target needs an unnormalized --vocab, have %s", strconv.Quote(f.vocab))
		}
	}
	if c.Unbounded {
		if tok, _ := vocab.Parse(c.Vocab); !isUnnormalized(tok) {
			return c, inputf(name, "--unbounded needs an unnormalized --vocab, have %s", strconv.Quote(f.vocab))
		}
	}
	return c, nil
}

// slowSummaryLen is the sequence length above which a tokenization that is
// not a tree gets warnSlowSummaries' warning: its summaries sample
// dist.DefaultSamples sequences a row, whose decoding costs grow with the
// square of the length (measured on 2 cores of an AMD EPYC: eval took
// about 0.05 s a row at 32 tokens, 0.2 s at 60, 3 s at 250).
const slowSummaryLen = 64

// warnSlowSummaries warns when c's tokenization is not a tree (a repeat,
// hamming) and longer than slowSummaryLen tokens: predict, eval, sample's
// summaries and serve then take a noticeable time a row, which training
// does not show.
func warnSlowSummaries(name string, c decoreg.Config) {
	if c.Head != decoreg.HeadDecoder {
		return
	}
	tok, err := vocab.Parse(c.Vocab)
	if err != nil {
		return
	}
	if _, tree := tok.(vocab.Tree); tree || tok.Len() <= slowSummaryLen {
		return
	}
	fmt.Fprintf(errOut, "decoreg %s: warning: --vocab %s is not a tree of nested cells, so predict, eval, serve and sample's summaries estimate its distribution from %d sampled sequences of %d tokens a row, which can take seconds a row (the time grows with the square of the length): a shorter one, or fewer repeats, is faster\n",
		name, strconv.Quote(c.Vocab), dist.DefaultSamples, tok.Len())
}

// wideRangeShare is the share of --target-range below which the span of
// the training targets gets warnWideRange's warning.
const wideRangeShare = 0.01

// warnTemperatureEdge warns when the fitted temperature t is at an end of
// the range --calibrate searches, [decoreg.MinTemperature,
// decoreg.MaxTemperature]: the validation rows would have a wider (or
// narrower) distribution than any temperature there gives, as for a model
// trained 3 epochs (T = 20, and calibrated scores worse than uncalibrated
// on other rows; review) or a target the features barely predict. The
// temperatures per depth of --calibrate-by depth are not warned about:
// 20 at the finest digits is what that calibration is for.
func warnTemperatureEdge(name string, t float64) {
	var e string
	switch {
	case t >= decoreg.MaxTemperature*(1-1e-6):
		e = "largest"
	case t > 0 && t <= decoreg.MinTemperature*(1+1e-6):
		e = "smallest"
	default:
		return
	}
	fmt.Fprintf(errOut, "decoreg %s: warning: the fitted temperature, %s, is the %s --calibrate tries (it searches %v to %v): the validation rows ask for a %s distribution than any temperature gives, as for a model trained too few epochs, or a target the features barely predict; compare eval's scores before and after calibration\n",
		name, strconv.FormatFloat(t, 'g', 4, 64), e, decoreg.MinTemperature, decoreg.MaxTemperature, pick(e == "largest", "wider", "narrower"))
}

// warnWideRange warns when c has a fixed target range (--target-range)
// and the training targets of fr span less than wideRangeShare of it: a
// normalized decoder's cells and a Riemann head's bins divide the range,
// not the data, so the targets share a few of them (0,1e308 for targets
// in 37-612 put them all in the first cell, and every prediction near
// 4e307, without a word), and the other heads scale y by it. An
// unnormalized decoder of the raw target is only bounded by it: no
// warning.
func warnWideRange(name, path string, fr *data.Frame, target string, c decoreg.Config) {
	if !c.FixedRange() {
		return
	}
	if c.Head == decoreg.HeadDecoder && c.RawTarget && c.Unbounded && c.AuxMSE == 0 && c.Pretrain == "" {
		// Neither scaled nor bounded by it: the predictions are the same
		// without it (it was taken without a word: review); --aux-mse's
		// read-out and --pretrain's pointwise stage are scaled by it.
		fmt.Fprintf(errOut, "decoreg %s: warning: --target-range with --raw-target and --unbounded only checks that the targets lie in it and sets the scale of nll_u: the decoder tokenizes y itself, and --unbounded leaves its cells unbounded by the range\n", name)
		return
	}
	if c.Head == decoreg.HeadDecoder && c.Unbounded && !c.RawTarget {
		// It scales y, but bounds nothing (helper-114: a [0, 6] range's
		// 0 quantile at -6e10 without a word).
		fmt.Fprintf(errOut, "decoreg %s: warning: --unbounded leaves the decoder's cells unbounded by --target-range: the range scales y, but the predictions can lie far outside it (leave out --unbounded to keep them in it)\n", name)
	}
	lo, hi, ok := targetRange(fr, target)
	if !ok {
		return
	}
	tok, _ := vocab.Parse(c.Vocab)
	if c.Head == decoreg.HeadDecoder && c.RawTarget {
		return // y is tokenized as it is; the range only bounds the cells
	}
	why := "the head scales y by that range, so the targets differ by a sliver of its scale, which the network must resolve"
	switch {
	case c.Head == decoreg.HeadRiemann:
		why = "the head divides that range into its bins, so the targets fall in a few of them"
	case c.Head == decoreg.HeadDecoder && !isUnnormalized(tok):
		why = "the decoder divides that range into its cells, so the targets fall in a few of them"
	}
	if r := c.TargetMax - c.TargetMin; hi-lo < wideRangeShare*r {
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: the training targets span [%v, %v], %.3g of --target-range [%v, %v]: %s; a range near the targets' resolves them\n",
			name, path, lo, hi, (hi-lo)/r, c.TargetMin, c.TargetMax, why)
	}
}

// warnCoarseCells warns when a decoder with --raw-target tokenizes the
// training targets of fr into a few cells, far fewer than their distinct
// values: y is tokenized as it is, so cells of a width set by the targets'
// magnitude can hold all of them (1e12 + [0, 1e-3) in one cell 4.3e9 wide:
// every prediction 1.4e9 from every target, without a word; review).
func warnCoarseCells(name, path string, fr *data.Frame, target string, c decoreg.Config) {
	if c.Head != decoreg.HeadDecoder || !c.RawTarget {
		return
	}
	tok, err := vocab.Parse(c.Vocab)
	j := fr.Column(target)
	if err != nil || j < 0 || fr.Columns[j].Kind != data.Numeric {
		return
	}
	col := &fr.Columns[j]
	cells := map[string]bool{}
	values := map[float64]bool{}
	var ys []float64
	for i, v := range col.Num {
		if col.Missing[i] {
			continue
		}
		ys = append(ys, v)
		values[v] = true
		if toks, _, err := tok.Encode(v); err == nil {
			cells[fmt.Sprint(toks)] = true
		}
	}
	if len(values) < 5 || len(cells) > min(3, len(values)/2) || len(cells) == 0 {
		return
	}
	med := slices.Sorted(slices.Values(ys))[len(ys)/2]
	width := ""
	if toks, _, err := tok.Encode(med); err == nil {
		if cell, err := tok.Decode(toks); err == nil {
			width = fmt.Sprintf(" (the one of the median target, %v, is %.3g wide)", med, cell.Width())
		}
	}
	fmt.Fprintf(errOut, "decoreg %s: warning: %s: --raw-target tokenizes the %d distinct training targets, from %v to %v, into %d cell(s) of %s%s: the model cannot tell them apart; use more mantissa digits, or leave out --raw-target (the targets are then scaled to the training range)\n",
		name, path, len(values), slices.Min(ys), slices.Max(ys), len(cells), c.Vocab, width)
}

// targetRange returns the smallest and largest of fr's targets in column
// target, those not missing; ok is false for no such numeric column or no
// target.
func targetRange(fr *data.Frame, target string) (lo, hi float64, ok bool) {
	j := fr.Column(target)
	if j < 0 || fr.Columns[j].Kind != data.Numeric {
		return 0, 0, false
	}
	col := &fr.Columns[j]
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, v := range col.Num {
		if i < len(col.Missing) && col.Missing[i] {
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, hi >= lo
}

// minTargetSteps is the fewest float64 steps, at the targets' magnitude,
// that their range may span before warnTargetSteps warns.
const minTargetSteps = 1 << 10

// warnTargetSteps warns when the training targets of fr differ only in
// their last float64 digits: a range of few steps of float64 at their
// magnitude (1.7e15 + 0..120: 480 steps of 0.25; 2^62 + 0..1000: one
// step, two distinct values). The heads scale y by its range, and the
// scaled values, and the scale's offset, are then off by a large share
// of it (predict gave the training maximum a log density of -Inf; review).
func warnTargetSteps(name, path string, fr *data.Frame, target string) {
	lo, hi, ok := targetRange(fr, target)
	mag := max(math.Abs(lo), math.Abs(hi))
	if !ok || !(hi-lo >= 0x1p-1022) || math.IsInf(hi-lo, 0) {
		return // equal, subnormal (refused with its own advice) or overflowing
	}
	step := math.Nextafter(mag, math.Inf(1)) - mag
	if steps := (hi - lo) / step; steps < minTargetSteps {
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: the training targets, from %v to %v, differ only in their last float64 digits (their range is %.0f step%s of %.3g at that magnitude): scaled to their range, they and the predictions lose that precision; subtract an offset from the target first (for example %v)\n",
			name, path, lo, hi, steps, pick(steps == 1, "", "s"), step, lo)
	}
}

// isUnnormalized reports whether tok is an unnormalized tokenization,
// repeated or not.
func isUnnormalized(tok vocab.Tokenizer) bool {
	if r, ok := tok.(*vocab.Repeat); ok {
		tok = r.Inner()
	}
	_, ok := tok.(*vocab.Unnormalized)
	return ok
}

// trainSummary is the JSON line train prints when it is done.
type trainSummary struct {
	Model     string `json:"model"`
	Head      string `json:"head"`
	Rows      int    `json:"rows"`
	ValRows   int    `json:"val_rows"`
	Params    int    `json:"params"`
	Epochs    int    `json:"epochs"`
	BestEpoch int    `json:"best_epoch"`
	ValLoss   any    `json:"val_loss"`
	Stopped   string `json:"stopped"`
	// Interrupted: an interrupt signal came before train ended (in
	// training, where stopped says "cancelled", in --calibrate, or while
	// the model was written, which was finished).
	Interrupted bool `json:"interrupted,omitempty"`
	// With --lr-drops: the learning-rate drops made, the first
	// member's (with --tune, the best trial's).
	LRDrops int     `json:"lr_drops,omitempty"`
	Seconds float64 `json:"seconds"`
	// With --calibrate: the temperature and the validation NLL (u units,
	// as val_loss, but the plain NLL even after --tune) before and after.
	Temperature float64 `json:"temperature,omitempty"`
	// With --calibrate-by depth: the temperatures per token depth.
	DepthTemperatures []float64 `json:"depth_temperatures,omitempty"`
	CalibrateBy       string    `json:"calibrate_by,omitempty"`
	ValNLLBefore      float64   `json:"val_nll_uncalibrated,omitempty"`
	ValNLLAfter       float64   `json:"val_nll_calibrated,omitempty"`
	// With --calibrate-by pit: the validation rows' pit_ece before and
	// after.
	ValPITBefore float64 `json:"val_pit_ece_uncalibrated,omitempty"`
	ValPITAfter  float64 `json:"val_pit_ece_calibrated,omitempty"`
	// With --calibrate-by isotonic: the map's segments and the identity's
	// weight in it.
	IsotonicSegments int     `json:"isotonic_segments,omitempty"`
	IsotonicWeight   float64 `json:"isotonic_identity_weight,omitempty"`
	// With --ensemble N: the members kept (N, or fewer with --tune);
	// params is then all members', epochs, best_epoch and val_loss the
	// first member's.
	Members int `json:"members,omitempty"`
	// With --tune: the number of trials, the chosen ones (1-based, best
	// first) and whether the budget cut the search short or skipped a
	// trial (TuneReport.Cut).
	Tune *tuneSummary `json:"tune,omitempty"`
	// Rows left out for a missing target.
	SkippedRows int `json:"skipped_rows,omitempty"`
	// With --pretrain: how the first stage ended (the first member's,
	// or the best trial's).
	Pretrain *pretrainSummary `json:"pretrain,omitempty"`
}

// pretrainSummary is decoreg.PretrainInfo with best_val_loss null
// without validation rows, as val_loss.
type pretrainSummary struct {
	Epochs      int     `json:"epochs"`
	BestEpoch   int     `json:"best_epoch"`
	BestValLoss any     `json:"best_val_loss"`
	Stopped     string  `json:"stopped"`
	Seconds     float64 `json:"seconds"`
}

type tuneSummary struct {
	Trials int   `json:"trials"`
	Chosen []int `json:"chosen"`
	Cut    bool  `json:"cut"`
	// With --ensemble-from all or seeds: the seeds' members that the second
	// budget stopped before early stopping, and those left out.
	MembersCut     *int `json:"members_cut,omitempty"`
	MembersLeftOut *int `json:"members_left_out,omitempty"`
	SeedsChosen    *int `json:"seeds_chosen,omitempty"`
	// With --soft-seeds where soft seeds' members were trained: how many
	// of the seeds chosen are soft.
	SoftSeedsChosen *int `json:"soft_seeds_chosen,omitempty"`
	// Where ple seeds' members were planned: how many of the seeds
	// chosen are ple ones.
	PLESeedsChosen *int `json:"ple_seeds_chosen,omitempty"`
}

// warnNumericLevels warns about categorical columns most of whose levels
// are numbers: a numeric column made categorical by a few stray cells
// (a unit, a comment, an unlisted missing marker). Levels that are
// numbers as spreadsheets write them ("1,000", "(12)") count as numbers
// and are not named, and the columns warnNumberLike warned about (skip)
// are left to it. Where a column's text levels are few, one line after
// the columns' offers them all to --na with those warnNumberLike offered
// (prevMarkers, of prevCols): one list, as each replaces the defaults.
func warnNumericLevels(name, path string, s *data.Schema, skip, prevMarkers, prevCols []string, dl data.Dialect) {
	if s == nil {
		return
	}
	var markers, markerCols []string
	for _, c := range s.Columns {
		if c.Kind != data.Categorical || slices.Contains(skip, c.Name) {
			continue
		}
		var text []string
		formed := 0 // numbers as spreadsheets write them: warnNumberLike's
		for _, l := range c.Levels {
			if _, err := dl.ParseNumber(l); err != nil { // as the cells are read
				if numberFormIn(dl, l) != notNumberLike {
					formed++
					continue
				}
				text = append(text, l)
			}
		}
		if nums := len(c.Levels) - len(text) - formed; nums > 0 && len(text) > 0 && 2*(nums+formed) >= len(c.Levels) {
			hint := "if they are meant as missing, list them in --na (whose list replaces the defaults)"
			if len(text) <= data.MaxStrayText {
				hint = "they look like missing-value markers (below)"
				markers = addNew(markers, text...)
				markerCols = append(markerCols, c.Name)
			}
			shown := quoteList(text[:min(len(text), 3)])
			if len(text) > 3 {
				shown += ", ..."
			}
			fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s is categorical (%d levels), but %d of its levels are numbers; the text ones are %s: %s\n",
				name, path, data.QuoteName(c.Name), len(c.Levels), nums, shown, hint)
		}
	}
	if len(markers) > 0 {
		warnMarkers(name, path, s.NA, addNew(markers, prevMarkers...), append(slices.Clone(prevCols), markerCols...), dl)
	}
}

// printTrials writes Tune's trial table, best first, and how the
// ensemble's members were trained: for an interrupted run only how many
// were chosen (the seeds' members may not have started).
func printTrials(w io.Writer, rep *decoreg.TuneReport, interrupted bool) {
	trials := slices.Clone(rep.Trials)
	slices.SortStableFunc(trials, func(a, b decoreg.TuneTrial) int { return cmp.Compare(a.ValLoss, b.ValLoss) })
	fmt.Fprintf(w, "%-5s %-7s %10s %6s %8s  %-16s %s\n", "trial", "chosen", "val_loss", "epochs", "seconds", "status", "settings")
	for _, t := range trials {
		ch := ""
		if t.Chosen {
			ch = "*"
		}
		fmt.Fprintf(w, "%-5d %-7s %10s %6d %8.1f  %-16s %s\n", t.N, ch, fmtLoss(t.ValLoss), t.Epochs, t.Seconds, trimStatus(t.Status), t.Label)
	}
	cut := ""
	if rep.Cut {
		skipped, stopped := 0, 0
		for _, t := range rep.Trials {
			switch t.Status {
			case "skipped":
				skipped++
			case "budget":
				stopped++
			}
		}
		var why []string
		if stopped > 0 || skipped == 0 {
			why = append(why, "the budget ran out before every trial ended")
		}
		if skipped > 0 {
			why = append(why, fmt.Sprintf("%d trial(s) were skipped, which at the speed measured on the trials before would not have ended their first rung in a third of the budget (small trials measure slow: a larger --budget runs them)", skipped))
		}
		cut = "; " + strings.Join(why, ", and ") + ", so another run may choose differently"
	}
	fmt.Fprintf(w, "tuned in %v of a %v budget%s\n", secs(rep.Seconds-rep.MemberSeconds).Round(time.Millisecond), secs(rep.Budget), cut)
	depth := ""
	if rep.Trials[0].Config.StopBy == decoreg.StopByDepth {
		depth = " at the temperatures per token depth fitted on them each epoch (--stop-by depth)"
	}
	switch {
	case rep.Trials[0].Config.StopBy == decoreg.StopByCRPS:
		fmt.Fprintf(w, "val_loss: the validation CRPS in units of the target range (--stop-by crps)\n")
	case rep.Resolution > 0: // only where every trial is a normalized decoder
		fmt.Fprintf(w, "val_loss: the validation NLL in u units%s, each row's density averaged over a cell at least %.4g of the target range wide (--tune-resolution)\n", depth, rep.Resolution)
	case depth != "":
		fmt.Fprintf(w, "val_loss: the validation NLL in u units%s\n", depth)
	}
	switch {
	case interrupted && (rep.EnsembleFrom == decoreg.EnsembleFromSeeds || rep.EnsembleFrom == decoreg.EnsembleFromAll):
		fmt.Fprintf(w, "interrupted: %d member(s) chosen so far, %d of them the best trial's seeds\n", rep.Members, rep.SeedsChosen)
	case rep.EnsembleFrom == decoreg.EnsembleFromSeeds || rep.EnsembleFrom == decoreg.EnsembleFromAll && rep.Trials[0].Config.Head == decoreg.HeadPointwise:
		fmt.Fprintf(w, "the best trial's seeds: %d member(s) in all, trained in %v of a second %v budget; %d stopped by it, %d left out\n",
			rep.Members, secs(rep.MemberSeconds).Round(time.Millisecond), secs(rep.Budget), rep.MembersCut, rep.MembersLeftOut)
	case rep.EnsembleFrom == decoreg.EnsembleFromAll && (rep.SoftSeedsTrained > 0 || rep.PLESeedsTrained > 0):
		var kinds, chosen []string
		if rep.SoftSeedsTrained > 0 {
			kinds = append(kinds, fmt.Sprintf("%d with --soft-targets %v", rep.SoftSeedsTrained, rep.SoftSeeds))
			chosen = append(chosen, fmt.Sprintf("%d soft", rep.SoftSeedsChosen))
		}
		if rep.PLESeedsTrained > 0 {
			kinds = append(kinds, fmt.Sprintf("%d with --input-transform ple", rep.PLESeedsTrained))
			chosen = append(chosen, fmt.Sprintf("%d ple", rep.PLESeedsChosen))
		}
		fmt.Fprintf(w, "the best trial's seeds (plain, and %s) trained in %v of a second %v budget (%d stopped by it); %d member(s) chosen, %d of them seeds, of those %s\n",
			strings.Join(kinds, " and "), secs(rep.MemberSeconds).Round(time.Millisecond), secs(rep.Budget), rep.MembersCut, rep.Members, rep.SeedsChosen, strings.Join(chosen, " and "))
	case rep.EnsembleFrom == decoreg.EnsembleFromAll:
		fmt.Fprintf(w, "the best trial's seeds trained in %v of a second %v budget (%d stopped by it); %d member(s) chosen, %d of them seeds\n",
			secs(rep.MemberSeconds).Round(time.Millisecond), secs(rep.Budget), rep.MembersCut, rep.Members, rep.SeedsChosen)
	}
}

// fmtLoss formats a validation loss for the trial table and the progress
// lines: four decimals, or, where that is wider than the table's column
// (10 characters: from 1e5, or -1e4), four digits with an exponent.
func fmtLoss(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-"
	}
	if s := fmt.Sprintf("%.4f", v); len(s) <= 10 {
		return s
	}
	return fmt.Sprintf("%.4g", v) // as 4.605e+37, in the table's column
}

// trimStatus shortens a refused trial's reason for the table.
func trimStatus(s string) string {
	if len(s) > 16 && strings.HasPrefix(s, "refused") {
		return "refused"
	}
	return s
}

// warnNumericHeader warns when every name of the header on line hline is a
// number: a file without a header, whose first row was taken for the
// column names (and was not trained on) without a word.
func warnNumericHeader(name, path string, header []string, hline int, dl data.Dialect) {
	for _, h := range header {
		if _, err := dl.ParseNumber(h); err != nil {
			return
		}
	}
	fmt.Fprintf(errOut, "decoreg %s: warning: %s: line %d, the header, holds only numbers (%s): if it is a row of data, the file has no header; the first line names the columns (add a line of names)\n",
		name, nameSpools(path), hline, quoteNames(header))
}

// onEpoch, when set (by tests), is called after each epoch's progress.
var onEpoch func(decoreg.Progress)

func runTrain(cmd *Command, args []string) error {
	const name = "train"
	f := &trainF
	fs := &cmd.Flag
	if err := noArgs(name, args); err != nil {
		return err
	}
	if err := noEmptyTarget(name, fs); err != nil {
		return err
	}
	if err := required(name, fs, "data", "out"); err != nil {
		return err
	}
	if err := noEmptyLists(name, fs, "features", "drop"); err != nil {
		return err
	}
	if err := noEmptyValues(name, fs, "head", "vocab", "encoder", "input-transform", "target-range", "stop-by", "calibrate-by", "ensemble-from", "test-mask"); err != nil {
		return err
	}
	dl, err := f.dialect.dialect(name)
	if err != nil {
		return err
	}
	if nas, err := listFields(f.na); err != nil {
		return inputf(name, "--na: %v", err)
	} else if err := naDecimalComma(name, f.na, nas, dl); err != nil {
		return err
	} else if strings.TrimSpace(f.na) != "" {
		// An empty entry (",", "NA,,?") would add nothing (an empty cell is
		// always missing), a repeated one neither: each is a typo.
		seen := map[string]int{}
		for i, p := range nas {
			p = strings.TrimSpace(p)
			if p == "" {
				return inputf(name, "--na %s: entry %d is empty; empty cells are always missing (--na \"\" leaves only them)", strconv.Quote(f.na), i+1)
			}
			if k, ok := seen[p]; ok {
				return inputf(name, "--na %s: entries %d and %d are both %s", strconv.Quote(f.na), k+1, i+1, strconv.Quote(p))
			}
			seen[p] = i
		}
	}
	cfg, err := f.config(fs)
	if err != nil {
		return err
	}
	warnSlowSummaries(name, cfg)
	if err := f.split.check(name, f.data); err != nil {
		return err
	}
	if f.maxLevels < 1 || f.maxLevels > data.MaxMaxLevels {
		return inputf(name, "--max-levels must be in [1, %d], have %d", data.MaxMaxLevels, f.maxLevels)
	}
	if err := checkOutPath(name, "out", f.out, true); err != nil {
		return err
	}
	if err := notAnInput(name, "out", f.out, [2]string{"data", f.data}, [2]string{"test-mask", f.split.mask}); err != nil {
		return err
	}

	// Data.
	path, err := dataFile(name, f.data)
	if err != nil {
		return err
	}
	header, hline, err := checkColumnNames(name, path, dl)
	if err != nil {
		return err
	}
	warnNumericHeader(name, path, header, hline, dl)
	feats, target, err := f.trainColumns(name, path, header, hline)
	if err != nil {
		return err
	}
	fr, err := data.ReadFrame(path, data.FrameOptions{Columns: append(feats, target), NA: naList(f.na), Dialect: dl,
		Kinds: map[string]data.Kind{target: data.Numeric}})
	if err != nil {
		var pe *data.ParseError
		if errors.As(err, &pe) && errors.Is(err, data.ErrDuplicateColumn) && pe.Column >= 1 && pe.Column <= len(header) {
			switch dup := header[pe.Column-1]; {
			case dup == target:
				err = fmt.Errorf("%w: rename one of them", err)
			case f.features != "":
				err = fmt.Errorf("%w: rename one of them, or leave it out of --features", err)
			default:
				err = fmt.Errorf("%w: rename one of them, or leave both out with --drop %s", err, flagArg(dup))
			}
		}
		if errors.Is(err, data.ErrNonFinite) && strings.Contains(err.Error(), "if it marks a missing cell") {
			err = fmt.Errorf("%w; --na sets the markers", err) // a NaN spelled otherwise ("nan")
		}
		return inputErr(name, targetTextErr(err, header, target, "; a stray text cell can be marked missing with --na", dl))
	}
	warnBlank(name, path, fr.Blank, len(header))
	warnGrouped(name, path, fr)
	// The file's cells: the frames of the training rows (a split's, the
	// labelled rows') have no MissingText.
	warnNALevels(name, nameSpools(path), fr, target)
	idx, err := f.split.rows(name, &data.Dataset{Rows: fr.Rows, Path: fr.Path}, false)
	if err != nil {
		return err
	}
	if len(idx) < fr.Rows {
		// A column is categorical if a training row has text in it.
		fr = fr.Subset(idx).Reinfer()
	}
	if fr, err = f.trainFrame(name, fr, target); err != nil {
		return err
	}
	warnWideRange(name, nameSpools(fr.Path), fr, target, cfg)
	warnCoarseCells(name, nameSpools(fr.Path), fr, target, cfg)
	warnTargetSteps(name, nameSpools(fr.Path), fr, target)

	// Training.
	ctx, stop := onInterrupt(func() {}) // the first signal stops gracefully, a second exits
	defer stop()
	var prog *progress
	if !f.quiet {
		prog = newProgress(errOut)
	}
	onProgress := func(p decoreg.Progress) {
		if prog != nil {
			prog.update(p)
		}
		if onEpoch != nil {
			onEpoch(p)
		}
	}
	progress := decoreg.WithProgress(onProgress)
	start := time.Now()
	var m *decoreg.Model
	if f.tune {
		var rep *decoreg.TuneReport
		opts := decoreg.TuneOptions{Budget: f.budget, Trials: f.trials, EnsembleFrom: f.ensembleFrom, SoftSeeds: f.softSeeds, PLESeeds: f.pleSeeds}
		if f.softSeeds == 0 {
			opts.SoftSeeds = -1 // none
		}
		if isSet(fs, "ema") && f.ema == 0 {
			opts.EMA = -1 // none; unset, the library's default
		}
		opts.Resolution = f.tuneResolution
		switch {
		case f.stopBy == decoreg.StopByCRPS:
			opts.Resolution = 0 // compared by the CRPS (a set flag is refused above)
		case f.tuneResolution == 0:
			opts.Resolution = -1 // plain NLLs
		}
		if !f.quiet {
			opts.Progress = func(t decoreg.TuneTrial) {
				fmt.Fprintf(errOut, "trial %d/%d %-14s epochs %3d val %s %s\n", t.N, f.trials, t.Status, t.Epochs, fmtLoss(t.ValLoss), t.Label)
			}
			opts.MemberProgress = onProgress // the seeds' members (--ensemble-from all or seeds)
		}
		m, rep, err = decoreg.TuneFrame(ctx, fr, target, cfg, opts, decoreg.WithMaxLevels(f.maxLevels))
		if prog != nil {
			prog.done()
		}
		if rep != nil && !f.quiet {
			printTrials(errOut, rep, errors.Is(err, context.Canceled) && !errors.Is(err, decoreg.ErrCalibrationCancelled))
		}
	} else {
		m, err = decoreg.FitFrame(ctx, fr, target, cfg, progress, decoreg.WithMaxLevels(f.maxLevels))
		if prog != nil {
			prog.done()
		}
	}
	interrupted := errors.Is(err, context.Canceled)
	switch {
	case err == nil:
	case interrupted && m != nil:
	case interrupted && errors.Is(err, decoreg.ErrPretrainCancelled):
		return interruptedf(name, "interrupted while pretraining the encoder (--pretrain's first stage, which gives no model); no model saved")
	case interrupted:
		return interruptedf(name, "interrupted before the first epoch ended; no model saved")
	default:
		return f.fitErr(fr, target, idx, err)
	}
	if info := m.Info(); info.SkippedRows > 0 {
		empty := 0 // rows empty in every column (",,"); fr holds the training rows only
		for i := range fr.Rows {
			if !slices.ContainsFunc(fr.Columns, func(c data.Column) bool { return !c.Missing[i] }) {
				empty++
			}
		}
		of := ""
		if empty > 0 {
			of = fmt.Sprintf(" (%d of them empty in every column read)", empty)
		}
		fmt.Fprintf(errOut, "decoreg %s: %s: skipped %d row(s) whose target %s is missing%s\n", name, nameSpools(fr.Path), info.SkippedRows, data.QuoteName(target), of)
	}
	warnNumericLevels(name, nameSpools(fr.Path), m.Schema(), f.numberLike, f.markers, f.markerCols, fr.Dialect)
	if t := m.Info().Tune; t != nil && t.PLESeedsSkipped != "" {
		fmt.Fprintf(errOut, "decoreg %s: --ple-seeds %d: none trained: %s\n", name, f.pleSeeds, t.PLESeedsSkipped)
	}
	if t := m.Info().Tune; f.tune && cfg.Ensemble > 1 && t != nil && !interrupted {
		seeds := t.EnsembleFrom == decoreg.EnsembleFromSeeds || t.EnsembleFrom == decoreg.EnsembleFromAll
		score := "NLL"
		if cfg.StopBy == decoreg.StopByCRPS {
			score = "CRPS"
		}
		switch {
		case t.EnsembleFrom == decoreg.EnsembleFromTrials && m.EnsembleSize() < cfg.Ensemble:
			fmt.Fprintf(errOut, "decoreg %s: --ensemble %d: kept %d trial(s): no other trial that finished an epoch lowered the validation %s of the mixture\n", name, cfg.Ensemble, m.EnsembleSize(), score)
		case seeds && t.MembersCut > 0:
			nSeeds := cfg.Ensemble - 1 + t.SoftSeedsTrained + t.PLESeedsTrained
			fmt.Fprintf(errOut, "decoreg %s: --ensemble %d --ensemble-from %s: the second --budget stopped %d of the best trial's %d seed member(s) before early stopping; kept %d member(s), %d of them seeds; a longer --budget gives them time\n",
				name, cfg.Ensemble, t.EnsembleFrom, t.MembersCut, nSeeds, m.EnsembleSize(), t.SeedsChosen)
		case seeds && m.EnsembleSize() < cfg.Ensemble && t.EnsembleFrom == decoreg.EnsembleFromAll && cfg.Head != decoreg.HeadPointwise:
			fmt.Fprintf(errOut, "decoreg %s: --ensemble %d --ensemble-from all: kept %d member(s), %d of them seeds: no other trial or seed member lowered the validation %s of the mixture (%d seed member(s) left out)\n", name, cfg.Ensemble, m.EnsembleSize(), t.SeedsChosen, score, t.MembersLeftOut)
		case seeds && m.EnsembleSize() < cfg.Ensemble:
			fmt.Fprintf(errOut, "decoreg %s: --ensemble %d --ensemble-from %s: %d seed member(s) diverged and were left out; kept %d\n", name, cfg.Ensemble, t.EnsembleFrom, t.MembersLeftOut, m.EnsembleSize())
		}
	}
	// An interrupt that came after training had ended, before the write
	// watches for one (training's handler took it, to no effect), counts
	// as the first: the write is made, and the next abandons it.
	late := !interrupted && ctx.Err() != nil
	if late {
		fmt.Fprintf(errOut, "decoreg %s: interrupted after training ended: writing the trained model to %s (interrupt again to abandon it)\n", name, f.out)
	}
	var writeInterrupted atomic.Bool
	write := func(w io.Writer) error { _, err := m.WriteTo(w); return err }
	var werr error
	if interrupted || late {
		// A second interrupt abandons the write (it was the write's
		// first, which finishes it: a double Ctrl-C wrote the model,
		// helper-125).
		werr = writeOutput(name, "out", f.out, write)
	} else {
		werr = writeFinishing(name, "out", f.out, func() {
			writeInterrupted.Store(true)
			fmt.Fprintf(errOut, "decoreg %s: interrupted while writing the trained model: finishing the write to %s (interrupt again to abandon it)\n", name, f.out)
		}, write)
	}
	if werr != nil {
		return werr
	}
	info := m.Info()
	if interrupted {
		switch {
		case errors.Is(err, decoreg.ErrCalibrationCancelled):
			fmt.Fprintf(errOut, "interrupted during --calibrate, after training ended: saved the model, not calibrated, to %s\n", f.out)
		case info.Tune != nil && m.EnsembleSize() > 1 && info.Tune.EnsembleFrom == decoreg.EnsembleFromTrials:
			fmt.Fprintf(errOut, "interrupted: saved the best trial and %d more trial(s) chosen so far (each at its best epoch) to %s\n", m.EnsembleSize()-1, f.out)
		case info.Tune != nil && m.EnsembleSize() > 1:
			fmt.Fprintf(errOut, "interrupted: saved the best trial and %d more member(s) chosen so far, %d of them the best trial's seeds (each at its best epoch) to %s\n", m.EnsembleSize()-1, info.Tune.SeedsChosen, f.out)
		case info.Tune != nil:
			fmt.Fprintf(errOut, "interrupted: saved the best trial so far to %s\n", f.out)
		case info.Members > 1:
			fmt.Fprintf(errOut, "interrupted: saved the %d ensemble member(s) trained so far (the last at its best epoch) to %s\n", info.Members, f.out)
		default:
			fmt.Fprintf(errOut, "interrupted: saved best model from epoch %d to %s\n", info.BestEpoch, f.out)
		}
		if cfg.Calibrate && info.CalibrateBy == "" && !errors.Is(err, decoreg.ErrCalibrationCancelled) {
			fmt.Fprintln(errOut, "interrupted before --calibrate: the model is not calibrated")
		}
	}
	warnTemperatureEdge(name, info.Temperature)
	s := trainSummary{
		Model: f.out, Head: string(cfg.Head), Rows: info.Rows, ValRows: info.ValRows, Params: info.Params,
		Epochs: info.Epochs, BestEpoch: info.BestEpoch, ValLoss: jsonNum(info.BestValLoss),
		Stopped: info.Stopped, LRDrops: info.LRDrops, Seconds: math.Round(time.Since(start).Seconds()*1000) / 1000,
		Temperature: info.Temperature, DepthTemperatures: info.DepthTemperatures, CalibrateBy: info.CalibrateBy, ValNLLBefore: info.ValNLLBefore, ValNLLAfter: info.ValNLLAfter,
		ValPITBefore: info.ValPITBefore, ValPITAfter: info.ValPITAfter,
		IsotonicSegments: info.IsotonicSegments, IsotonicWeight: info.IsotonicWeight,
		Members: info.Members, SkippedRows: info.SkippedRows, Interrupted: interrupted || late || writeInterrupted.Load(),
	}
	if p := info.Pretrain; p != nil {
		s.Pretrain = &pretrainSummary{Epochs: p.Epochs, BestEpoch: p.BestEpoch, BestValLoss: jsonNum(p.BestValLoss), Stopped: p.Stopped, Seconds: p.Seconds}
		if info.ValRows == 0 {
			s.Pretrain.BestValLoss = nil
		}
	}
	if cfg.Ensemble > 1 {
		s.Members = m.EnsembleSize()
		s.Params = 0
		for _, mk := range m.Members() {
			s.Params += mk.Info().Params // all members'
		}
	}
	if t := info.Tune; t != nil {
		s.Tune = &tuneSummary{Trials: len(t.Trials), Cut: t.Cut}
		if t.EnsembleFrom == decoreg.EnsembleFromSeeds || t.EnsembleFrom == decoreg.EnsembleFromAll {
			s.Tune.MembersCut, s.Tune.MembersLeftOut, s.Tune.SeedsChosen = &t.MembersCut, &t.MembersLeftOut, &t.SeedsChosen
		}
		if t.SoftSeeds > 0 {
			s.Tune.SoftSeedsChosen = &t.SoftSeedsChosen
		}
		if t.PLESeeds > 0 {
			s.Tune.PLESeedsChosen = &t.PLESeedsChosen
		}
		for _, tr := range t.Trials {
			if tr.Chosen {
				s.Tune.Chosen = append(s.Tune.Chosen, tr.N)
			}
		}
	}
	if info.ValRows == 0 {
		s.ValLoss = nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return failf(name, "%v", err)
	}
	sum := stdout
	if f.out == "-" || outfile.IsStdout(f.out) {
		sum = errOut // standard output holds the model
	}
	_, err = fmt.Fprintf(sum, "%s\n", b)
	return err
}

// checkColumnNames refuses, before training, column names that the model
// file could not keep: names that are not valid UTF-8 (the file's JSON
// header would replace their bytes, and the model could not then read its
// own training file), and names too long for a model file's header
// (modelfile.MaxHeader, 64 MiB). It returns the header and its line.
func checkColumnNames(name, path string, dl data.Dialect) ([]string, int, error) {
	header, hline, err := dl.ReadHeaderLine(path)
	if err != nil {
		return nil, 0, inputErr(name, err)
	}
	for j, h := range header {
		if strings.ContainsRune(h, 0) {
			return nil, 0, inputf(name, "%s: line %d, column %d: the column name %s holds NUL bytes: is the file UTF-16? decoreg reads UTF-8 (convert it with iconv -f UTF-16 -t UTF-8)", path, hline, j+1, data.QuoteCell(h))
		}
	}
	if first := strings.TrimLeft(header[0], " "); len(header) <= 2 && len(first) >= 4 && strings.EqualFold(first[:4], "sep=") && utf8.RuneCountInString(first) <= len("sep=")+1 && (len(header) == 1 || header[1] == "") {
		// Excel's line naming the separator ("sep=;", or "sep=," read as
		// two fields), before the header.
		line := strings.Join(header, string(dl.Comma())) // as the file writes it
		switch sep := first[4:]; {
		case sep == "" && len(header) == 2: // "sep=," read as two fields
			return nil, 0, inputf(name, "%s: line %d is Excel's %s line, not a header: remove it (decoreg takes the header from the first line)", path, hline, data.QuoteCell(line))
		case sep == "": // a tab or a space, trimmed from the name
			return nil, 0, inputf(name, "%s: line %d is Excel's \"sep=\" line (naming a tab or a space), not a header: remove it, and give --sep tab for tabs (for spaces, convert the file to commas)", path, hline)
		default:
			return nil, 0, inputf(name, "%s: line %d is Excel's %s line, not a header: remove it, and give --sep %s", path, hline, data.QuoteCell(line), shellArg(sep))
		}
	}
	if strings.HasPrefix(header[0], "#") && (len(header) == 1 || strings.HasPrefix(header[0], "##") || strings.Contains(header[0], " ")) {
		// A comment ("# exported 2024-01-01", "#exported 2024, by foo"), or
		// a header behind one ("# x,y", as numpy writes it, "## x,y"); a
		// column may be named "#x" (not "# x").
		return nil, 0, inputf(name, "%s: line %d starts with '#': decoreg reads no comment lines, and takes the first line for the header: remove the comment lines (if this line is the header, remove its '#')", path, hline)
	}
	if hint := otherSeparator(header, dl); hint != "" {
		return nil, 0, inputf(name, "%s: line %d: %s", path, hline, hint)
	}
	size := 0
	for j, h := range header {
		if !utf8.ValidString(h) {
			return nil, 0, inputf(name, "%s: line %d, column %d: the column name %s is not valid UTF-8, which a model file cannot record (%s)", path, hline, j+1, data.QuoteName(h), data.NotUTF8Hint)
		}
		b, _ := json.Marshal(h)
		size += 2*len(b) + 64 // the name in the schema and as a feature's, and the feature's scaling
	}
	if room := modelfile.MaxHeader - 1<<20; size > room {
		return nil, 0, inputf(name, "%s: line %d: the column names would take about %d bytes in a model file, more than the %d bytes its header may give them (64 MiB, less 1 MiB for the rest)", path, hline, size, room)
	}
	return header, hline, nil
}

// fitErr reports an error of decoreg.FitFrame on the training frame fr
// (the data rows idx of its file): a bad configuration names its flag, data
// that cannot be trained on names the file (and its line and column where
// the library gives them); other failures, such as a diverging loss, exit
// with status 1.
func (f *trainFlags) fitErr(fr *data.Frame, target string, idx []int, err error) error {
	const name = "train"
	if ferr, ok := configErr(name, err); ok {
		return ferr
	}
	if lerr, ok := levelsErr(name, err, naList(f.na), f.features != "", fr); ok {
		return lerr
	}
	var pe *data.ParseError
	if errors.As(err, &pe) {
		return inputErr(name, pe)
	}
	// The labelled rows, as the library trained on them.
	tj := fr.Column(target)
	var y []float64
	for i, miss := range fr.Columns[tj].Missing {
		if !miss {
			y = append(y, fr.Columns[tj].Num[i])
		}
	}
	rows := len(y)
	switch {
	case errors.Is(err, decoreg.ErrConstantTarget):
		return inputf(name, "%s: the target column %s is constant (every one of the %d training rows has %v)", fr.Path, data.QuoteName(target), rows, y[0])
	case errors.Is(err, decoreg.ErrTooFewRows) && rows == 0:
		return inputf(name, "%s: every one of the %d training rows has a missing target %s", fr.Path, fr.Rows, data.QuoteName(target))
	case errors.Is(err, decoreg.ErrTooFewRows) && rows >= 2:
		// Rounding put every row in the validation split.
		nVal := max(1, int(math.Round(f.valFrac*float64(rows))))
		return inputf(name, "--val-frac %v holds out %d of the %d training rows of %s for validation (the fraction is rounded to whole rows), leaving none to train on; use a --val-frac of at most %s (or 0: no validation split)",
			f.valFrac, nVal, rows, fr.Path, fmtFloat(float64(rows-1)/float64(rows)))
	case errors.Is(err, decoreg.ErrTooFewRows):
		return inputf(name, "%s: %d training row(s) are too few for a validation split of --val-frac %v (it needs at least 1 row to hold out and 1 to train on; --val-frac 0 trains without one)",
			fr.Path, rows, f.valFrac)
	case errors.Is(err, decoreg.ErrBudgetTooShort):
		return inputf(name, "--budget %v: %s: no trial finished an epoch within it; raise it", f.budget, fr.Path)
	case errors.Is(err, decoreg.ErrBadInput):
		// Row and Column index fr's rows and columns; fr.Lines has each
		// row's first line in the file (blank lines and quoted line breaks
		// before it counted: the row's index + 2 named line 5 for line 7).
		return dataErr(name, &data.Dataset{Names: fr.Names(), Rows: fr.Rows, Path: fr.Path, Lines: fr.Lines}, idx, err)
	case errors.Is(err, decoreg.ErrTooLarge):
		// About the settings and the machine's state, not the file.
		return failf(name, "%s", strings.TrimPrefix(err.Error(), "decoreg: "))
	}
	return failf(name, "%s: %v", fr.Path, err)
}

// progress prints training progress: a \r-updated bar on a terminal, one
// line per epoch otherwise.
type progress struct {
	out     io.Writer
	bar     bool // draw a \r-updated bar (out is a terminal)
	lastLen int  // length of the bar's last line, to blank its leftovers
}

func newProgress(w io.Writer) *progress {
	return &progress{out: w, bar: isTerminal(w)}
}

func (p *progress) update(e decoreg.Progress) {
	best := " "
	if e.Best {
		best = "*"
	}
	val := "-"
	if !math.IsNaN(e.ValLoss) {
		val = fmt.Sprintf("%.4f", e.ValLoss)
	}
	member := ""
	if e.Members > 1 {
		member = fmt.Sprintf("member %d/%d ", e.Member+1, e.Members)
	}
	if e.Pretrain {
		member += "pretrain "
	}
	if !p.bar {
		fmt.Fprintf(p.out, "%sepoch %d/%d train %.4f val %s%s %s\n", member, e.Epoch, e.MaxEpochs, e.TrainLoss, val, best, fmtDur(e.Elapsed))
		return
	}
	// Early stopping may end training sooner, so the time left is a bound.
	left := e.Elapsed / time.Duration(max(1, e.Epoch)) * time.Duration(e.MaxEpochs-e.Epoch)
	const width = 20
	fill := width * e.Epoch / max(1, e.MaxEpochs)
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
	line := fmt.Sprintf("%sepoch %d/%d [%s] train %.4f val %s%s ETA <= %s", member, e.Epoch, e.MaxEpochs, bar, e.TrainLoss, val, best, fmtDur(left))
	pad := ""
	if n := p.lastLen - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.out, "\r%s%s", line, pad)
	p.lastLen = len(line)
}

// done ends the progress bar's line.
func (p *progress) done() {
	if p.bar && p.lastLen > 0 {
		fmt.Fprintln(p.out)
	}
}

// fmtDur formats d to the second (to the millisecond below a second).
func fmtDur(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// normalizedVocab reports whether the --vocab spec (the default when
// empty) is a normalized tokenization; a spec that does not parse counts
// as normalized here and is refused by the configuration's check.
func normalizedVocab(spec string) bool {
	if spec == "" {
		spec = decoreg.DefaultVocab
	}
	tok, err := vocab.Parse(spec)
	if err != nil {
		return true
	}
	_, ok := tok.(*vocab.Normalized)
	return ok
}

// secs converts a report's seconds to a Duration to print, clamped at the
// largest Duration: the largest --budget, 9223372036854775807ns, is 9.2e9
// seconds, whose nanoseconds as a float64 round beyond int64.
func secs(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/1e9 {
		return math.MaxInt64
	}
	return time.Duration(s * 1e9)
}

// otherSeparator returns, for a header of one column holding a semicolon,
// a tab, a bar or a comma other than dl's separator (a file separated by
// another), what to do about it; "" for any other header.
func otherSeparator(header []string, dl data.Dialect) string {
	if len(header) != 1 {
		return ""
	}
	for _, sep := range []rune{';', '\t', '|', ','} {
		if sep == dl.Comma() || !strings.ContainsRune(header[0], sep) {
			continue
		}
		give := "give " + sepFlag(sep)
		if sep == ',' {
			give = "leave out --sep (its default is the comma)"
		}
		return fmt.Sprintf("the header is one column, %s, holding %s: if the file's fields are separated by it, %s", data.QuoteName(header[0]), strconv.Quote(string(sep)), give)
	}
	return ""
}
