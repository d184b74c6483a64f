package gemm

import (
	"sync"
	"unsafe"
)

const (
	// parallelMin is the number of multiply-adds (m*n*k) below which a
	// product runs on the calling goroutine: starting goroutines costs
	// more than it saves.
	parallelMin = 1 << 18

	// directBMax bounds k*n for reading an untransposed B in place, without
	// packing. B then fits in L2 and its packing would cost a noticeable
	// share of a small product.
	directBMax = 1 << 14
)

// blocked computes C = alpha*op(A)*op(B) + beta*C with kern's micro-kernel
// for k >= 1, alpha != 0, m, n >= 1.
//
// Loops, outermost first: columns of C in blocks of nc (jc); depth in
// blocks of kc (pc), where B's block is packed into kc x nr panels; then
// the threads, each owning a range of row tiles and of column panels; in
// each, rows in blocks of about mc (A packed into mr x kc panels), column
// panels (jr), row tiles (ir), and the micro-kernel. Tiles are anchored at
// row 0 and column jc, and a thread's ranges are whole tiles, so each
// element of C sees the same operations whatever the number of threads.
//
// Packing is skipped where it would cost more than it saves: A is read in
// place (any transposition) when C has few column panels, so that each
// panel of A would be used only a few times; B is read in place when it is
// not transposed and small. Partial tiles are always packed with zero
// padding, and partial tiles of C go through a scratch tile.
func blocked(kern *kernel, threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	mr, nr := kern.mr, kern.nr
	if float64(m)*float64(n)*float64(k) < parallelMin {
		threads = 1
	}
	g := &gemmCall{
		kern: kern, transA: transA, transB: transB, m: m, n: n, k: k,
		alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc,
		directA: n <= 4*nr,
		directB: !transB && n*k <= directBMax,
	}
	mt := ceilDiv(m, mr)
	bbuf := getBuf(min(kern.kc, k) * ceilDiv(min(kern.nc, n), nr) * nr)
	defer putBuf(bbuf)
	for jc := 0; jc < n; jc += kern.nc {
		ncb := min(kern.nc, n-jc)
		nt := ceilDiv(ncb, nr)
		tm, tn := split(threads, mt, nt)
		for pc := 0; pc < k; pc += kern.kc {
			g.jc, g.ncb, g.pc, g.kcb = jc, ncb, pc, min(kern.kc, k-pc)
			g.beta = beta
			if pc > 0 {
				g.beta = 1
			}
			g.bpack = bbuf.f
			// Pack B's panels (in place: only a partial last one).
			first := 0
			if g.directB {
				first = nt - 1
				if ncb%nr == 0 {
					first = nt
				}
			}
			if packers := min(threads, nt-first); packers > 1 && (nt-first)*g.kcb*nr >= 1<<14 {
				parallel(packers, func(w int) {
					lo, hi := share(first, nt, packers, w)
					for jr := lo; jr < hi; jr++ {
						g.packB(jr)
					}
				})
			} else {
				for jr := first; jr < nt; jr++ {
					g.packB(jr)
				}
			}
			parallel(tm*tn, func(w int) {
				r0, r1 := share(0, mt, tm, w/tn)
				c0, c1 := share(0, nt, tn, w%tn)
				g.work(r0, r1, c0, c1)
			})
		}
	}
}

// gemmCall holds one multiply and the block being computed.
type gemmCall struct {
	kern             *kernel
	transA, transB   bool
	m, n, k          int
	alpha            float32
	a                []float32
	lda              int
	b                []float32
	ldb              int
	c                []float32
	ldc              int
	directA, directB bool

	jc, ncb int       // current block of columns of C
	pc, kcb int       // current block of depth
	beta    float32   // beta for this depth block: the caller's, then 1
	bpack   []float32 // packed panels of B, each kcb x nr
}

// packB packs column panel jr (nr columns of op(B) from jc+jr*nr, rows pc
// to pc+kcb) into its place in g.bpack, zero-padding missing columns.
func (g *gemmCall) packB(jr int) {
	nr, kcb := g.kern.nr, g.kcb
	dst := g.bpack[jr*kcb*nr : (jr+1)*kcb*nr]
	col0 := g.jc + jr*nr
	cols := min(nr, g.jc+g.ncb-col0)
	if !g.transB {
		for p := 0; p < kcb; p++ {
			off := (g.pc+p)*g.ldb + col0
			d := dst[p*nr : p*nr+nr]
			copy(d, g.b[off:off+cols])
			clear(d[cols:])
		}
		return
	}
	// op(B)(p, j) = b[j*ldb + p]: read rows of b, write columns of dst.
	for j := 0; j < cols; j++ {
		off := (col0+j)*g.ldb + g.pc
		src := g.b[off : off+kcb]
		for p, v := range src {
			dst[p*nr+j] = v
		}
	}
	if cols < nr {
		for p := 0; p < kcb; p++ {
			clear(dst[p*nr+cols : p*nr+nr])
		}
	}
}

// panelB returns column panel jr of the current block and its row stride.
func (g *gemmCall) panelB(jr int) ([]float32, int) {
	nr := g.kern.nr
	col0 := g.jc + jr*nr
	if g.directB && col0+nr <= g.jc+g.ncb {
		return g.b[g.pc*g.ldb+col0:], g.ldb
	}
	return g.bpack[jr*g.kcb*nr:], nr
}

// packA packs row tile ir (mr rows of op(A) from ir*mr, depth pc to
// pc+kcb) into dst as kcb groups of mr, zero-padding missing rows.
func (g *gemmCall) packA(dst []float32, ir int) {
	mr, kcb := g.kern.mr, g.kcb
	dst = dst[:kcb*mr]
	row0 := ir * mr
	rows := min(mr, g.m-row0)
	if g.transA {
		// op(A)(i, p) = a[p*lda + i]: rows of a are already groups.
		for p := 0; p < kcb; p++ {
			off := (g.pc+p)*g.lda + row0
			d := dst[p*mr : p*mr+mr]
			copy(d, g.a[off:off+rows])
			clear(d[rows:])
		}
		return
	}
	for i := 0; i < rows; i++ {
		off := (row0+i)*g.lda + g.pc
		src := g.a[off : off+kcb]
		for p, v := range src {
			dst[p*mr+i] = v
		}
	}
	if rows < mr {
		for p := 0; p < kcb; p++ {
			clear(dst[p*mr+rows : p*mr+mr])
		}
	}
}

// work computes, for the current block, the row tiles [r0, r1) times the
// column panels [c0, c1).
func (g *gemmCall) work(r0, r1, c0, c1 int) {
	if r0 >= r1 || c0 >= c1 {
		return
	}
	kern := g.kern
	mr, nr, kcb := kern.mr, kern.nr, g.kcb
	mcTiles := max(1, kern.mc/mr)
	blocks := ceilDiv(r1-r0, mcTiles)
	per := ceilDiv(r1-r0, blocks) // tiles per block, balanced
	abufTiles := per
	if g.directA {
		abufTiles = 1 // only a partial tile is packed
	}
	abuf := getBuf(abufTiles*kcb*mr + mr*nr)
	defer putBuf(abuf)
	apack := abuf.f[:abufTiles*kcb*mr]
	tile := abuf.f[abufTiles*kcb*mr:]
	for t0 := r0; t0 < r1; t0 += per {
		t1 := min(t0+per, r1)
		if !g.directA {
			for ir := t0; ir < t1; ir++ {
				g.packA(apack[(ir-t0)*kcb*mr:], ir)
			}
		} else if t1*mr > g.m {
			g.packA(apack, t1-1)
		}
		for jr := c0; jr < c1; jr++ {
			bp, rsb := g.panelB(jr)
			col0 := g.jc + jr*nr
			cols := min(nr, g.jc+g.ncb-col0)
			for ir := t0; ir < t1; ir++ {
				row0 := ir * mr
				rows := min(mr, g.m-row0)
				var ap []float32
				var rsa, csa int
				switch {
				case !g.directA:
					ap, rsa, csa = apack[(ir-t0)*kcb*mr:], 1, mr
				case rows < mr:
					ap, rsa, csa = apack, 1, mr
				case g.transA:
					ap, rsa, csa = g.a[g.pc*g.lda+row0:], 1, g.lda
				default:
					ap, rsa, csa = g.a[row0*g.lda+g.pc:], g.lda, 1
				}
				coff := row0*g.ldc + col0
				if rows == mr && cols == nr {
					kern.micro(kcb, ap, rsa, csa, bp, rsb, g.c[coff:], g.ldc, g.alpha, g.beta)
					continue
				}
				kern.micro(kcb, ap, rsa, csa, bp, rsb, tile, nr, 1, 0)
				g.mergeTile(tile, coff, rows, cols)
			}
		}
	}
}

// mergeTile stores a partial tile: C = alpha*tile + beta*C over rows x cols.
func (g *gemmCall) mergeTile(tile []float32, coff, rows, cols int) {
	nr := g.kern.nr
	alpha, beta := g.alpha, g.beta
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

// split chooses a grid of tm x tn <= threads workers over mt row tiles and
// nt column panels that minimises the largest share, preferring to split
// rows (threads that split columns each pack the same A).
func split(threads, mt, nt int) (tm, tn int) {
	tm, tn = 1, 1
	best := mt * nt
	for r := 1; r <= min(threads, mt); r++ {
		cc := min(threads/r, nt)
		if cost := ceilDiv(mt, r) * ceilDiv(nt, cc); cost <= best {
			best, tm, tn = cost, r, cc
		}
	}
	return tm, tn
}

// share returns worker w's part of [lo, hi) split into parts nearly equal
// parts.
func share(lo, hi, parts, w int) (int, int) {
	n := hi - lo
	return lo + n*w/parts, lo + n*(w+1)/parts
}

// parallel runs f(0), ..., f(n-1) on n goroutines (f(0) on the caller's)
// and waits for all of them.
func parallel(n int, f func(w int)) {
	if n <= 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(n - 1)
	for w := 1; w < n; w++ {
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	f(0)
	wg.Wait()
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
