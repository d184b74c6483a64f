package gemm

// PackedB is the B operand of multiplies that reuse it (a layer's weights
// at inference), packed once into the panels that the default kernel's
// blocked multiply would pack it into at every call. SgemmPacked then
// skips that packing; its results are those of Sgemm, bit for bit. The
// panels are a copy: later changes to B are not seen.
type PackedB struct {
	kern   *kernel
	transB bool
	n, k   int
	b      []float32 // the source, for a kernel that multiplies whole (OpenBLAS)
	ldb    int
	panels [][]float32 // depth block d: every column panel, kcb x nr each
}

// PackB packs op(B) (k x n; B itself is n x k when transB) for
// SgemmPacked. It panics on the dimension and length errors Sgemm panics
// on.
func PackB(transB bool, n, k int, b []float32, ldb int) *PackedB {
	// Sgemm's checks of B, for one row of A.
	checkArgs(false, transB, 1, n, k, make([]float32, max(k, 0)), max(1, k), b, ldb, make([]float32, max(n, 0)), max(1, n))
	kern := usable[0]
	pb := &PackedB{kern: kern, transB: transB, n: n, k: k, b: b, ldb: ldb}
	if kern.full != nil || n == 0 || k == 0 {
		return pb
	}
	g := gemmCall{kern: kern, transB: transB, n: n, k: k, b: b, ldb: ldb}
	kc, nt := min(kern.kc, k), ceilDiv(n, kern.nr)
	for pc := 0; pc < k; pc += kc {
		d := depth{pc: pc, kcb: min(kc, k-pc)}
		panels := make([]float32, nt*d.kcb*kern.nr)
		g.packB(panels, d, 0, nt)
		pb.panels = append(pb.panels, panels)
	}
	return pb
}

// Dims returns the n and k of the packed operand.
func (pb *PackedB) Dims() (n, k int) { return pb.n, pb.k }

// SgemmPacked computes C = alpha*op(A)*op(B) + beta*C, as Sgemm does with
// the B that pb packed (m x k op(A), k x n op(B)), on up to threads
// goroutines.
func SgemmPacked(threads int, transA bool, m int, alpha float32, a []float32, lda int, pb *PackedB, beta float32, c []float32, ldc int) {
	n, k := pb.n, pb.k
	if pb.panels == nil || alpha == 0 {
		pb.kern.mul(threads, transA, pb.transB, m, n, k, alpha, a, lda, pb.b, pb.ldb, beta, c, ldc)
		return
	}
	checkArgs(transA, pb.transB, m, n, k, a, lda, pb.b, pb.ldb, c, ldc)
	if m == 0 {
		return
	}
	kern := pb.kern
	run(gemmCall{
		kern: kern, transA: transA, transB: pb.transB, m: m, n: n, k: k,
		alpha: alpha, a: a, lda: lda, b: pb.b, ldb: pb.ldb, beta: beta, c: c, ldc: ldc,
		directA: kern.directA(n, transA),
		prepB:   pb.panels,
	}, max(threads, 1))
}
