package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"decoreg"
	"decoreg/internal/gemm"
	"decoreg/metrics"
)

var benchGemmCmd = &Command{
	Name:      "bench gemm",
	UsageLine: "bench gemm [--sizes LIST] [--threads LIST] [--kernels LIST] [--repeat N] [--min-time DUR]",
	Short:     "measure the float32 GEMM's GFLOP/s per kernel, size and thread count",
	Long: `Bench gemm times Sgemm (C = A*B, no transposes, beta 0) and prints one JSON
object per line:

	{"m":256,"n":512,"k":512,"threads":1,"kernel":"avx2","gflops":81.3}

for every size, every kernel built in and usable on this machine (avx512,
avx2, purego; openblas when built with -tags openblas), and every thread
count. gflops counts 2*m*n*k floating-point operations per multiply and is
the median over the repeats. One repeat times back-to-back multiplies for at
least --min-time after a warm-up call; the repeats are interleaved (every
kernel and thread count once, then again), so that a noisy machine affects
all of them alike and their ratios stay meaningful. After timing OpenBLAS on
several threads the benchmark pauses briefly, because OpenBLAS's idle
worker threads keep spinning for a while and would take a core from the
next case.

A size whose three float32 matrices need more than 4 GiB is refused.`,
}

func init() {
	registerBench(&benchCommand{Name: "gemm", Short: benchGemmCmd.Short, Run: runBenchGemm})
}

// openblasSettle is the pause after timing OpenBLAS on several threads:
// its idle worker threads spin, by default for 2^28 cycles, and would take
// a core from the next case.
const openblasSettle = 300 * time.Millisecond

// gemmResult is one output line of bench gemm.
type gemmResult struct {
	M       int     `json:"m"`
	N       int     `json:"n"`
	K       int     `json:"k"`
	Threads int     `json:"threads"`
	Kernel  string  `json:"kernel"`
	GFLOPS  float64 `json:"gflops"`
}

func runBenchGemm(args []string) error {
	fs := newFlagSet(benchGemmCmd)
	sizesFlag := fs.String("sizes", "256x512x512,256x2048x2048,64x32x32", "comma-separated `MxNxK` sizes")
	threadsFlag := fs.String("threads", "1,2", "comma-separated thread counts (0: every core)")
	kernelsFlag := fs.String("kernels", "", "comma-separated kernels (default: all usable: "+strings.Join(gemm.Kernels(), ",")+")")
	repeat := fs.Int("repeat", 5, "timed repeats per case; the median is reported")
	minTime := fs.Duration("min-time", 100*time.Millisecond, "least time of one repeat")
	if err := parseFlags(benchGemmCmd, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench gemm: unexpected argument %q", fs.Arg(0))
	}
	sizes, err := gemm.ParseSizes(*sizesFlag)
	if err != nil {
		return usagef("bench gemm: --sizes: %v", err)
	}
	if i := repeated(sizes); i >= 0 {
		return usagef("bench gemm: --sizes: %dx%dx%d appears twice", sizes[i][0], sizes[i][1], sizes[i][2])
	}
	for _, s := range sizes {
		m, n, k := s[0], s[1], s[2]
		need := 4 * (benchBytes(m, k) + benchBytes(k, n) + benchBytes(m, n))
		if err := checkBenchMemory("gemm", fmt.Sprintf("--sizes %dx%dx%d", m, n, k), need); err != nil {
			return err
		}
	}
	threads, err := parseGemmThreads(*threadsFlag)
	if err != nil {
		return usagef("bench gemm: --threads: %v", err)
	}
	if i := repeated(threads); i >= 0 {
		every := ""
		if slices.ContainsFunc(strings.Split(*threadsFlag, ","), func(f string) bool { return strings.TrimSpace(f) == "0" }) {
			every = fmt.Sprintf(" (0 is every core: %d here)", runtime.GOMAXPROCS(0))
		}
		return usagef("bench gemm: --threads: %d appears twice%s", threads[i], every)
	}
	kernels := gemm.Kernels()
	if isSet(fs, "kernels") && strings.TrimSpace(*kernelsFlag) == "" {
		return usagef("bench gemm: --kernels is empty (leave it out for every usable kernel: %s)", strings.Join(gemm.Kernels(), ","))
	}
	if *kernelsFlag != "" {
		kernels = strings.Split(*kernelsFlag, ",")
		for _, k := range kernels {
			if !slices.Contains(gemm.Kernels(), k) {
				return usagef("bench gemm: --kernels: kernel %s is not usable here (usable: %s)", strconv.Quote(k), strings.Join(gemm.Kernels(), ", "))
			}
		}
		if i := repeated(kernels); i >= 0 {
			return usagef("bench gemm: --kernels: %s appears twice", strconv.Quote(kernels[i]))
		}
	}
	if *repeat < 1 {
		return usagef("bench gemm: --repeat must be at least 1, not %d", *repeat)
	}
	if *minTime < 0 {
		return usagef("bench gemm: --min-time must not be negative")
	}

	enc := json.NewEncoder(stdout)
	for _, s := range sizes {
		m, n, k := s[0], s[1], s[2]
		rng := rand.New(rand.NewPCG(uint64(m), uint64(n*k)))
		a := gemmRandFloats(m*k, rng)
		b := gemmRandFloats(k*n, rng)
		c := make([]float32, m*n)
		type cell struct {
			kernel  string
			threads int
			gflops  []float64
		}
		var cells []*cell
		for _, kn := range kernels {
			for _, th := range threads {
				cells = append(cells, &cell{kernel: kn, threads: th})
			}
		}
		for r := 0; r < *repeat; r++ {
			for _, cl := range cells {
				mul, err := gemm.Using(cl.kernel)
				if err != nil {
					return err
				}
				cl.gflops = append(cl.gflops, timeGemm(mul, cl.threads, m, n, k, a, b, c, *minTime))
				if cl.kernel == "openblas" && cl.threads > 1 {
					// OpenBLAS's worker threads spin for a while after a
					// call; let them go to sleep before timing the next case.
					time.Sleep(openblasSettle)
				}
			}
		}
		for _, cl := range cells {
			res := gemmResult{M: m, N: n, K: k, Threads: cl.threads, Kernel: cl.kernel, GFLOPS: gemmRound3(metrics.Median(cl.gflops))}
			if err := enc.Encode(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// timeGemm returns the GFLOP/s of m x n x k multiplies by mul on threads
// threads run back to back for at least minTime, after one untimed call.
func timeGemm(mul gemm.Func, threads, m, n, k int, a, b, c []float32, minTime time.Duration) float64 {
	mul(threads, false, false, m, n, k, 1, a, k, b, n, 0, c, n)
	calls := 0
	start := time.Now()
	var el time.Duration
	for calls == 0 || el < minTime {
		mul(threads, false, false, m, n, k, 1, a, k, b, n, 0, c, n)
		calls++
		el = time.Since(start)
	}
	return 2 * float64(m) * float64(n) * float64(k) * float64(calls) / el.Seconds() / 1e9
}

func gemmRandFloats(n int, rng *rand.Rand) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = rng.Float32()*2 - 1
	}
	return x
}

func gemmRound3(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	return v
}

// repeated returns the index of the first element of xs that an earlier
// one equals, or -1: a list flag's repeated entry would repeat its cases.
func repeated[T comparable](xs []T) int {
	for i, x := range xs {
		if slices.Contains(xs[:i], x) {
			return i
		}
	}
	return -1
}

// parseGemmThreads parses "1,2,..."; 0 means every core (GOMAXPROCS).
func parseGemmThreads(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 || v > decoreg.MaxThreads {
			return nil, fmt.Errorf("%s is not an integer in [0, %d] (0: every core)", strconv.Quote(f), decoreg.MaxThreads)
		}
		if v == 0 {
			v = runtime.GOMAXPROCS(0)
		}
		out = append(out, v)
	}
	return out, nil
}
