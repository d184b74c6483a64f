package nn

// need panics unless len(s) >= n; what names the argument.
func need(s []float32, n int, what string) {
	if len(s) < n {
		panic("nn: " + what + " shorter than its shape")
	}
}

// needOpt is need for an optional (nil-able) buffer.
func needOpt(s []float32, n int, what string) {
	if s != nil && len(s) < n {
		panic("nn: " + what + " shorter than its shape")
	}
}

func needDims(what string, dims ...int) {
	for _, d := range dims {
		if d < 0 {
			panic("nn: negative dimension in " + what)
		}
	}
}

// colBlock is the number of columns whose float64 sums are kept on the
// stack by addRowSums.
const colBlock = 64

// colSums is the kernel dst[j] += sum over rows r of src[r*width+j], over
// blocks lo..hi-1 of colBlock columns, so that each column has one owner.
type colSums struct {
	dst, src    []float32
	rows, width int
}

func (k colSums) Run(lo, hi int) {
	j0, j1 := lo*colBlock, min(hi*colBlock, k.width)
	addRowSums(k.dst[j0:j1], k.src[j0:], k.rows, k.width, j1-j0)
}

// blocks returns the number of colBlock-wide column blocks of width C.
func blocks(C int) int { return (C + colBlock - 1) / colBlock }

// addRowSums sets dst[j] += sum over r < rows of src[r*stride+j], for
// j < width, summing in float64 in row order.
func addRowSums(dst, src []float32, rows, stride, width int) {
	colSums8(dst[:width], src, rows, stride)
}
