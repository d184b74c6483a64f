package gemm

import (
	"sync"
	"unsafe"

	"decoreg/internal/par"
)

const (
	// parallelMin is the number of multiply-adds (m*n*k) below which a
	// product runs on the calling goroutine: starting goroutines costs
	// more than it saves.
	parallelMin = 1 << 18

	// An untransposed B is read in place, without packing, when k*n is at
	// most directBMax (B then fits in L2 and its packing would cost a
	// noticeable share of a small product), or when C has at most
	// directBRows row tiles (each element of B is used too few times to
	// repay its packing) and ldb is not a multiple of 64 floats (whose
	// rows would compete for a few sets of the L1 cache).
	directBMax  = 1 << 14
	directBRows = 8
)

// blocked computes C = alpha*op(A)*op(B) + beta*C with kern's micro-kernel
// for k >= 1, alpha != 0, m, n >= 1.
//
// C is cut into tiles of mr x nr anchored at (0, 0). A piece of work
// (work) owns a rectangle of whole tiles and loops, outermost first, over
// depth blocks of kc (pc; beta applies in the first, then 1), row blocks
// of at most mc rows (A's tiles packed into mr x kc panels), groups of
// bGroup column panels (B packed into kc x nr panels, used while they are
// in L2), column panels, row tiles, and the micro-kernel. Every element of
// C thus sees the same operations in the same order, whoever computes it.
//
// Packing is skipped where it would cost more than it saves: A is read in
// place (any transposition) when C has few column panels, so that each
// panel of A would be used only a few times; B is read in place when it is
// not transposed and small or used by few row tiles. Partial tiles are
// always packed with zero padding, and partial tiles of C go through a
// scratch tile.
//
// With several threads the rectangles are work items that the caller and
// pooled workers take from a shared counter (par.Do), so that a thread
// whose core is busy with another process takes fewer instead of holding
// up the others: either bands of row tiles, each packing its own A and B, or,
// when that would pack B too many times (few rows), bands of column panels
// after all threads have packed the whole of A together into a buffer
// they share (see plan).
func blocked(kern *kernel, threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	run(gemmCall{
		kern: kern, transA: transA, transB: transB, m: m, n: n, k: k,
		alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc,
		directA: kern.directA(n, transA),
		directB: !transB && (n*k <= directBMax || m <= directBRows*kern.mr && ldb%64 != 0),
	}, threads)
}

// run carries out the multiply g (blocked's, or SgemmPacked's with B
// packed beforehand) on up to threads goroutines.
func run(g gemmCall, threads int) {
	kern, m, n, k := g.kern, g.m, g.n, g.k
	if float64(m)*float64(n)*float64(k) < parallelMin || par.Contended() {
		threads = 1
	}
	mt, nt := ceilDiv(m, kern.mr), ceilDiv(n, kern.nr)
	rows, items := g.plan(threads, mt, nt)
	if items <= 1 {
		g.work(0, mt, 0, nt, nil) // g stays on the stack
		return
	}
	gp := new(gemmCall)
	*gp = g
	if rows {
		par.Do(items, threads, func(i int) {
			r0, r1 := share(0, mt, items, i)
			gp.work(r0, r1, 0, nt, nil)
		})
		return
	}
	var shared [][]float32
	if !g.directA {
		var bb *buf
		shared, bb = gp.packAllA(threads, mt)
		defer putBuf(bb)
	}
	par.Do(items, threads, func(i int) {
		c0, c1 := share(0, nt, items, i)
		gp.work(0, mt, c0, c1, shared)
	})
}

// itemsPerThread is the number of work items per thread: enough that a
// thread slowed down by another process leaves only a small share of the
// work for the end, few enough that the repeated packing stays cheap.
const itemsPerThread = 3

// plan chooses how threads share a multiply of mt row tiles by nt column
// panels: bands of row tiles (rows) or of column panels, and how many
// (items, 1 for one thread). Row bands each pack the B they use, so B is
// packed once per band; column bands share A packed once but pack B once
// per row block, and wait for A's packing. The cheaper, in floats packed,
// wins, with column bands charged for their wait.
func (g *gemmCall) plan(threads, mt, nt int) (rows bool, items int) {
	if threads <= 1 {
		return true, 1
	}
	kern := g.kern
	mcTiles := max(1, kern.mc/kern.mr)
	rowItems := min(mt, threads*itemsPerThread)
	colItems := min(nt, threads*itemsPerThread)
	var packA, packB float64
	if !g.directA {
		packA = float64(mt*kern.mr) * float64(g.k)
	}
	if !g.directB && g.prepB == nil {
		packB = float64(nt*kern.nr) * float64(g.k)
	}
	rowCost := packA + packB*float64(rowItems)
	colCost := packA + packB*float64(ceilDiv(mt, mcTiles))
	if !g.directA {
		colCost += 1 << 14 // the wait for the shared A, in floats packed
	}
	if rowItems >= threads && (rowCost <= colCost || colItems < threads) {
		return true, rowItems
	}
	if colItems >= threads {
		return false, colItems
	}
	return true, 1
}

// packAllA packs every row tile of A for every depth block, with threads
// taking chunks of tiles from a shared counter, into a pooled buffer:
// depth block d in shared[d], tile ir at ir*kcb*mr. The caller puts the
// buffer back.
func (g *gemmCall) packAllA(threads, mt int) (shared [][]float32, bb *buf) {
	kc, mr := min(g.kern.kc, g.k), g.kern.mr
	blocks := ceilDiv(g.k, kc)
	bb = getBuf(mt * mr * g.k)
	shared = make([][]float32, blocks)
	for d := range blocks {
		kcb := min(kc, g.k-d*kc)
		shared[d] = bb.f[mt*mr*d*kc : mt*mr*(d*kc+kcb)]
	}
	const chunk = 8 // tiles per item
	chunks := ceilDiv(mt, chunk)
	par.Do(blocks*chunks, threads, func(i int) {
		d := depth{pc: i / chunks * kc}
		d.kcb = min(kc, g.k-d.pc)
		t0 := i % chunks * chunk
		t1 := min(t0+chunk, mt)
		g.packATiles(shared[i/chunks][t0*d.kcb*mr:], d, t0, t1)
	})
	return shared, bb
}

// tilesPerBlock returns the number of row tiles per row block for a
// worker owning row tiles [r0, r1): at most mc rows, balanced.
func (g *gemmCall) tilesPerBlock(r0, r1 int) int {
	mcTiles := max(1, g.kern.mc/g.kern.mr)
	return ceilDiv(r1-r0, ceilDiv(r1-r0, mcTiles))
}

// bGroup is the number of column panels of B packed together: their
// kc x nr panels stay in L2 while the row tiles use them.
const bGroup = 4

// gemmCall holds one multiply. It is read-only while threads work on it.
type gemmCall struct {
	kern             *kernel
	transA, transB   bool
	m, n, k          int
	alpha            float32
	a                []float32
	lda              int
	b                []float32
	ldb              int
	beta             float32
	c                []float32
	ldc              int
	directA, directB bool
	prepB            [][]float32 // B packed beforehand (PackB): depth block d's panels
}

// depth is one block of the sum over k: rows pc to pc+kcb of op(B),
// columns of op(A), and the beta that applies (the caller's in the first
// block, then 1).
type depth struct {
	pc, kcb int
	beta    float32
}

// packB packs column panels [j0, j1) (nr columns of op(B) each, from
// jr*nr, depth block d) into dst, kcb rows of nr after another for each
// panel, zero-padding columns past n.
func (g *gemmCall) packB(dst []float32, d depth, j0, j1 int) {
	nr, kcb := g.kern.nr, d.kcb
	if !g.transB {
		full := max(j0, min(j1, g.n/nr)) // panels [j0, full) have all nr columns
		if full > j0 && g.kern.packRows != nil {
			off := d.pc*g.ldb + j0*nr
			g.kern.packRows(dst, g.b[off:], kcb, g.ldb, full-j0, nr)
		}
		// Row by row: reads stay sequential, writes go to j1-j0 streams.
		for p := 0; p < kcb; p++ {
			row := g.b[(d.pc+p)*g.ldb:]
			jr := j0
			if g.kern.packRows != nil {
				jr = full
			}
			for ; jr < j1; jr++ {
				col0 := jr * nr
				o := ((jr-j0)*kcb + p) * nr
				dp := dst[o : o+nr]
				if col0+nr <= g.n {
					copyPanelRow(dp, row[col0:col0+nr])
				} else {
					copyPad(dp, row[col0:g.n])
				}
			}
		}
		return
	}
	// op(B)(p, j) = b[j*ldb + p]: read rows of b four at a time, write
	// four adjacent columns of a panel.
	for jr := j0; jr < j1; jr++ {
		dp := dst[(jr-j0)*kcb*nr : (jr-j0+1)*kcb*nr]
		col0 := jr * nr
		cols := min(nr, g.n-col0)
		p0 := 0 // rows of the panel packed by packTrans
		if cols == nr && nr%8 == 0 && kcb >= 8 && g.kern.packTrans != nil {
			blocks := kcb / 8
			g.kern.packTrans(dp, g.b[col0*g.ldb+d.pc:], g.ldb, blocks, nr/8, nr)
			p0 = 8 * blocks
		}
		j := 0
		for ; j+4 <= cols && p0 < kcb; j += 4 {
			off := (col0+j)*g.ldb + d.pc
			r0 := g.b[off+p0 : off+kcb]
			r1 := g.b[off+g.ldb+p0:][:len(r0)]
			r2 := g.b[off+2*g.ldb+p0:][:len(r0)]
			r3 := g.b[off+3*g.ldb+p0:][:len(r0)]
			for p := range r0 {
				q := (*[4]float32)(dp[(p0+p)*nr+j:])
				q[0], q[1], q[2], q[3] = r0[p], r1[p], r2[p], r3[p]
			}
		}
		for ; j < cols && p0 < kcb; j++ {
			off := (col0+j)*g.ldb + d.pc
			for p, v := range g.b[off+p0 : off+kcb] {
				dp[(p0+p)*nr+j] = v
			}
		}
		if cols < nr {
			for p := 0; p < kcb; p++ {
				clear(dp[p*nr+cols : p*nr+nr])
			}
		}
	}
}

// copyPanelRow copies one row of a panel, len(dst) == len(src) == nr, in
// 16-byte moves: the compiler turns whole-array copies of this size into
// calls to memmove.
func copyPanelRow(dst, src []float32) {
	if len(dst)%4 != 0 {
		copy(dst, src)
		return
	}
	src = src[:len(dst)]
	for i := 0; i+4 <= len(dst); i += 4 {
		*(*[4]float32)(dst[i : i+4]) = *(*[4]float32)(src[i : i+4])
	}
}

// copyPad copies src to the start of dst and zeroes the rest of dst, with
// plain loops: the rows are short, and calls to memmove and memclr would
// cost more than the copying.
func copyPad(dst, src []float32) {
	dst = dst[:max(len(dst), len(src))]
	//lint:ignore S1001 a loop, not copy's memmove, for these short rows (above)
	for i, v := range src {
		dst[i] = v
	}
	for i := len(src); i < len(dst); i++ {
		dst[i] = 0
	}
}

// packATiles packs row tiles [t0, t1) into dst, tile ir at
// (ir-t0)*kcb*mr, as packA does one by one. For a transposed A, op(A)'s
// rows for one p are contiguous in a and each tile takes mr of them: the
// whole tiles are copied with 16- and 8-byte moves (the compiler calls
// memmove for a 24-byte array), tile by tile so that the writes are
// sequential.
func (g *gemmCall) packATiles(dst []float32, d depth, t0, t1 int) {
	mr, kcb := g.kern.mr, d.kcb
	full := max(t0, min(t1, g.m/mr)) // tiles [t0, full) have all mr rows
	if !g.transA || (mr != 6 && mr != 8) {
		full = t0
	}
	for ir := t0; ir < full; ir++ {
		dt := dst[(ir-t0)*kcb*mr : (ir-t0+1)*kcb*mr]
		off := d.pc*g.lda + ir*mr
		for p := 0; p < kcb; p, off = p+1, off+g.lda {
			*(*[4]float32)(dt[p*mr:]) = *(*[4]float32)(g.a[off:])
			if mr == 6 {
				*(*[2]float32)(dt[p*6+4:]) = *(*[2]float32)(g.a[off+4:])
			} else {
				*(*[4]float32)(dt[p*8+4:]) = *(*[4]float32)(g.a[off+4:])
			}
		}
	}
	for ir := full; ir < t1; ir++ {
		g.packA(dst[(ir-t0)*kcb*mr:], d, ir)
	}
}

// packA packs row tile ir (mr rows of op(A) from ir*mr, depth block d)
// into dst as kcb groups of mr, zero-padding rows past m.
func (g *gemmCall) packA(dst []float32, d depth, ir int) {
	mr, kcb := g.kern.mr, d.kcb
	dst = dst[:kcb*mr]
	row0 := ir * mr
	rows := min(mr, g.m-row0)
	if g.transA {
		// op(A)(i, p) = a[p*lda + i]: rows of a are already groups.
		for p := 0; p < kcb; p++ {
			off := (d.pc+p)*g.lda + row0
			copyPad(dst[p*mr:p*mr+mr], g.a[off:off+rows])
		}
		return
	}
	// op(A)(i, p) = a[i*lda + p]: read the rows side by side and write one
	// group of mr per k step.
	off := row0*g.lda + d.pc
	switch {
	case rows == 6 && mr == 6 && g.kern.packA6 != nil && kcb >= 8:
		blocks := kcb / 8
		g.kern.packA6(dst, g.a[off:], g.lda, blocks)
		for p := 8 * blocks; p < kcb; p++ {
			q := (*[6]float32)(dst[p*6:])
			for i := range q {
				q[i] = g.a[off+i*g.lda+p]
			}
		}
	case rows == 6 && mr == 6:
		r0 := g.a[off : off+kcb]
		r1 := g.a[off+g.lda:][:len(r0)]
		r2 := g.a[off+2*g.lda:][:len(r0)]
		r3 := g.a[off+3*g.lda:][:len(r0)]
		r4 := g.a[off+4*g.lda:][:len(r0)]
		r5 := g.a[off+5*g.lda:][:len(r0)]
		for p := range r0 {
			q := (*[6]float32)(dst[p*6:])
			q[0], q[1], q[2], q[3], q[4], q[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
		}
	case rows == 8 && mr == 8:
		r0 := g.a[off : off+kcb]
		r1 := g.a[off+g.lda:][:len(r0)]
		r2 := g.a[off+2*g.lda:][:len(r0)]
		r3 := g.a[off+3*g.lda:][:len(r0)]
		r4 := g.a[off+4*g.lda:][:len(r0)]
		r5 := g.a[off+5*g.lda:][:len(r0)]
		r6 := g.a[off+6*g.lda:][:len(r0)]
		r7 := g.a[off+7*g.lda:][:len(r0)]
		for p := range r0 {
			q := (*[8]float32)(dst[p*8:])
			q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p], r6[p], r7[p]
		}
	default:
		for i := 0; i < rows; i++ {
			for p, v := range g.a[off+i*g.lda : off+i*g.lda+kcb] {
				dst[p*mr+i] = v
			}
		}
		if rows < mr {
			for p := 0; p < kcb; p++ {
				clear(dst[p*mr+rows : p*mr+mr])
			}
		}
	}
}

// work computes the row tiles [r0, r1) times the column panels [c0, c1)
// of C. With shared (from packAllA), A's tiles are read from there instead
// of being packed here, all the rows in one block.
func (g *gemmCall) work(r0, r1, c0, c1 int, shared [][]float32) {
	if r0 >= r1 || c0 >= c1 {
		return
	}
	kern := g.kern
	mr, nr := kern.mr, kern.nr
	kc := min(kern.kc, g.k)
	per := g.tilesPerBlock(r0, r1)
	aTiles := per
	if shared != nil {
		per = r1 - r0
	}
	if g.directA || shared != nil {
		aTiles = 1 // only a partial tile, or nothing, is packed here
	}
	bPanels := bGroup
	switch {
	case g.prepB != nil:
		bPanels = 0
	case g.directB:
		bPanels = 1 // only a partial panel is packed
	}
	scratch := getBuf(aTiles*kc*mr + bPanels*kc*nr + mr*nr)
	defer putBuf(scratch)
	apack := scratch.f[: aTiles*kc*mr : aTiles*kc*mr]
	bpack := scratch.f[aTiles*kc*mr : aTiles*kc*mr+bPanels*kc*nr : aTiles*kc*mr+bPanels*kc*nr]
	tile := scratch.f[aTiles*kc*mr+bPanels*kc*nr:]

	for pc, di := 0, 0; pc < g.k; pc, di = pc+kc, di+1 {
		d := depth{pc: pc, kcb: min(kc, g.k-pc), beta: g.beta}
		if pc > 0 {
			d.beta = 1
		}
		for t0 := r0; t0 < r1; t0 += per {
			t1 := min(t0+per, r1)
			switch {
			case shared != nil:
				apack = shared[di][t0*d.kcb*mr:]
			case !g.directA:
				g.packATiles(apack, d, t0, t1)
			case t1*mr > g.m:
				g.packA(apack, d, t1-1)
			}
			for j0 := c0; j0 < c1; j0 += bGroup {
				j1 := min(j0+bGroup, c1)
				switch {
				case g.prepB != nil:
				case !g.directB:
					g.packB(bpack, d, j0, j1)
				case j1*nr > g.n:
					g.packB(bpack, d, j1-1, j1)
				}
				for jr := j0; jr < j1; jr++ {
					col0 := jr * nr
					cols := min(nr, g.n-col0)
					var bp []float32
					rsb := nr
					switch {
					case g.prepB != nil:
						bp = g.prepB[di][jr*d.kcb*nr:]
					case !g.directB:
						bp = bpack[(jr-j0)*d.kcb*nr:]
					case cols < nr:
						bp = bpack
					default:
						bp, rsb = g.b[d.pc*g.ldb+col0:], g.ldb
					}
					for ir := t0; ir < t1; ir++ {
						row0 := ir * mr
						rows := min(mr, g.m-row0)
						var ap []float32
						rsa, csa := 1, mr
						switch {
						case !g.directA || shared != nil:
							ap = apack[(ir-t0)*d.kcb*mr:]
						case rows < mr:
							ap = apack
						case g.transA:
							ap, rsa, csa = g.a[d.pc*g.lda+row0:], 1, g.lda
						default:
							ap, rsa, csa = g.a[row0*g.lda+d.pc:], g.lda, 1
						}
						coff := row0*g.ldc + col0
						if rows == mr && cols == nr {
							kern.micro(d.kcb, ap, rsa, csa, bp, rsb, g.c[coff:], g.ldc, g.alpha, d.beta)
							continue
						}
						kern.micro(d.kcb, ap, rsa, csa, bp, rsb, tile, nr, 1, 0)
						g.mergeTile(tile, coff, rows, cols, d.beta)
					}
				}
			}
		}
	}
}

// mergeTile stores a partial tile: C = alpha*tile + beta*C over rows x cols.
func (g *gemmCall) mergeTile(tile []float32, coff, rows, cols int, beta float32) {
	nr := g.kern.nr
	alpha := g.alpha
	for i := 0; i < rows; i++ {
		ci := g.c[coff+i*g.ldc : coff+i*g.ldc+cols]
		ti := tile[i*nr : i*nr+cols]
		if beta == 0 {
			for j := range ci {
				ci[j] = alpha * ti[j]
			}
		} else {
			for j := range ci {
				ci[j] = alpha*ti[j] + beta*ci[j]
			}
		}
	}
}

// share returns worker w's part of [lo, hi) split into parts nearly equal
// parts.
func share(lo, hi, parts, w int) (int, int) {
	n := hi - lo
	return lo + n*w/parts, lo + n*(w+1)/parts
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// buf is a pooled scratch buffer; f starts on a 64-byte boundary so that
// packed panels do not straddle cache lines needlessly.
type buf struct {
	raw []float32
	f   []float32
}

var bufPool sync.Pool

func getBuf(n int) *buf {
	bb, _ := bufPool.Get().(*buf)
	if bb == nil {
		bb = new(buf)
	}
	if cap(bb.raw) < n+16 {
		bb.raw = make([]float32, n+16)
	}
	off := 0
	if addr := uintptr(unsafe.Pointer(unsafe.SliceData(bb.raw))); addr%64 != 0 {
		off = int(64-addr%64) / 4
	}
	bb.f = bb.raw[off : off+n]
	return bb
}

func putBuf(bb *buf) { bufPool.Put(bb) }
