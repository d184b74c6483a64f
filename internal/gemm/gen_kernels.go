//go:build ignore

// gen_kernels writes kernel_amd64.s: the AVX2+FMA and AVX-512 micro-kernels
// come from this one template, so that the AVX-512 kernel (which cannot run
// on every development machine) is the same code as the AVX2 one with wider
// registers. Run "go generate" in this directory after editing it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
)

// spec describes one micro-kernel: an mr x nr tile of C kept in registers,
// nr = nv vectors of width w floats per row.
type spec struct {
	name   string // Go function name
	isa    string // for comments
	mr     int    // rows of the C tile (at most 9: three A row pointers)
	nv     int    // vectors per row of the tile
	w      int    // floats per vector
	reg    string // "Y" or "Z"
	zero   string // instruction that zeroes a vector register
	accReg int    // first accumulator register
}

var specs = []spec{
	{name: "sgemmKernelAVX2", isa: "AVX2+FMA", mr: 6, nv: 2, w: 8, reg: "Y", zero: "VXORPS", accReg: 4},
	{name: "sgemmKernelAVX512", isa: "AVX-512F", mr: 8, nv: 2, w: 16, reg: "Z", zero: "VPXORD", accReg: 4},
}

const unroll = 4

type gen struct {
	b bytes.Buffer
	s spec
}

func (g *gen) p(format string, args ...any) {
	fmt.Fprintf(&g.b, "\t"+format+"\n", args...)
}

func (g *gen) label(l string) {
	fmt.Fprintf(&g.b, "%s_%s:\n", g.s.name, l)
}

func (g *gen) l(l string) string { return g.s.name + "_" + l }

func (g *gen) v(i int) string { return fmt.Sprintf("%s%d", g.s.reg, i) }

// acc is the accumulator of tile row i, vector j.
func (g *gen) acc(i, j int) string { return g.v(g.s.accReg + i*g.s.nv + j) }

func (g *gen) nr() int { return g.s.nv * g.s.w }

// aGeneric is the address of A(i, p) in the strided loop: row i of the tile
// lives at base pointer i/3 (SI, R12, R13) plus (i%3)*rsa (R8 holds rsa in
// bytes).
func aGeneric(i int) string {
	base := []string{"SI", "R12", "R13"}[i/3]
	switch i % 3 {
	case 0:
		return "(" + base + ")"
	case 1:
		return "(" + base + ")(R8*1)"
	default:
		return "(" + base + ")(R8*2)"
	}
}

// step emits one k step: load a row of B, then for each row of A broadcast
// A(i, p) and accumulate. aAddr gives A(i, p)'s address, bRow the address
// of B's row, such as "(DI)" or "(DI)(R10*1)".
func (g *gen) step(aAddr func(i int) string, bRow string) {
	s := g.s
	for j := 0; j < s.nv; j++ {
		g.p("VMOVUPS %d%s, %s", j*s.w*4, bRow, g.v(j))
	}
	for i := 0; i < s.mr; i++ {
		t := g.v(s.nv + i%2) // alternate broadcast registers
		g.p("VBROADCASTSS %s, %s", aAddr(i), t)
		for j := 0; j < s.nv; j++ {
			g.p("VFMADD231PS %s, %s, %s", g.v(j), t, g.acc(i, j))
		}
	}
}

func (g *gen) kernel() {
	s := g.s
	nr := g.nr()
	fmt.Fprintf(&g.b, "// func %s(a, b, c *float32, k, rsa, csa, rsb, ldc int, alpha, beta float32)\n", s.name)
	fmt.Fprintf(&g.b, "// %s, tile %dx%d. Registers: SI A (and R12, R13 in the strided loop),\n", s.isa, s.mr, nr)
	fmt.Fprintf(&g.b, "// R8 rsa, R9 csa, DI B, R10 rsb (R12 3*rsb, R13 4*rsb in the packed loop),\n")
	fmt.Fprintf(&g.b, "// CX k, BX k/4, DX C, R11 ldc, AX scratch; strides in bytes.\n")
	fmt.Fprintf(&g.b, "TEXT ·%s(SB), NOSPLIT, $0-72\n", s.name)
	g.p("MOVQ a+0(FP), SI")
	g.p("MOVQ b+8(FP), DI")
	g.p("MOVQ c+16(FP), DX")
	g.p("MOVQ k+24(FP), CX")
	g.p("MOVQ rsa+32(FP), R8")
	g.p("SHLQ $2, R8")
	g.p("MOVQ csa+40(FP), R9")
	g.p("SHLQ $2, R9")
	g.p("MOVQ rsb+48(FP), R10")
	g.p("SHLQ $2, R10")
	g.p("MOVQ ldc+56(FP), R11")
	g.p("SHLQ $2, R11")
	for i := 0; i < s.mr; i++ {
		for j := 0; j < s.nv; j++ {
			a := g.acc(i, j)
			g.p("%s %s, %s, %s", s.zero, a, a, a)
		}
	}
	// Touch the C tile early so that its lines arrive during the k loop.
	g.p("MOVQ DX, AX")
	for i := 0; i < s.mr; i++ {
		g.p("PREFETCHT0 (AX)")
		g.p("PREFETCHT0 %d(AX)", nr*4-4)
		if i < s.mr-1 {
			g.p("ADDQ R11, AX")
		}
	}
	g.p("TESTQ CX, CX")
	g.p("JEQ %s", g.l("store"))
	// A packed (panels of mr floats per k step), B with any row stride:
	// the unrolled loop, A at constant offsets, B's rows at DI, DI+rsb,
	// DI+2*rsb and DI+3*rsb (R12 = 3*rsb, R13 = 4*rsb, in bytes).
	g.p("CMPQ R8, $4")
	g.p("JNE %s", g.l("strided"))
	g.p("CMPQ R9, $%d", s.mr*4)
	g.p("JNE %s", g.l("strided"))
	g.p("LEAQ (R10)(R10*2), R12")
	g.p("MOVQ R10, R13")
	g.p("SHLQ $2, R13")
	g.p("MOVQ CX, BX")
	g.p("SHRQ $%d, BX", log2(unroll))
	g.p("JEQ %s", g.l("packedtail"))
	g.label("packedloop")
	bRow := []string{"(DI)", "(DI)(R10*1)", "(DI)(R10*2)", "(DI)(R12*1)"}
	for u := 0; u < unroll; u++ {
		g.step(func(i int) string { return fmt.Sprintf("%d(SI)", (u*s.mr+i)*4) }, bRow[u])
	}
	g.p("ADDQ $%d, SI", unroll*s.mr*4)
	g.p("ADDQ R13, DI")
	g.p("DECQ BX")
	g.p("JNE %s", g.l("packedloop"))
	g.label("packedtail")
	g.p("ANDQ $%d, CX", unroll-1)
	g.p("JEQ %s", g.l("store"))
	g.label("packedtailloop")
	g.step(func(i int) string { return fmt.Sprintf("%d(SI)", i*4) }, "(DI)")
	g.p("ADDQ $%d, SI", s.mr*4)
	g.p("ADDQ R10, DI")
	g.p("DECQ CX")
	g.p("JNE %s", g.l("packedtailloop"))
	g.p("JMP %s", g.l("store"))

	// Any strides: one k step per iteration.
	g.label("strided")
	if s.mr > 3 { // R12 and R13 are free here: the packed loop was not taken
		g.p("LEAQ (SI)(R8*2), R12")
		g.p("ADDQ R8, R12")
	}
	if s.mr > 6 {
		g.p("LEAQ (R12)(R8*2), R13")
		g.p("ADDQ R8, R13")
	}
	g.label("stridedloop")
	g.step(aGeneric, "(DI)")
	g.p("ADDQ R9, SI")
	if s.mr > 3 {
		g.p("ADDQ R9, R12")
	}
	if s.mr > 6 {
		g.p("ADDQ R9, R13")
	}
	g.p("ADDQ R10, DI")
	g.p("DECQ CX")
	g.p("JNE %s", g.l("stridedloop"))

	// C = alpha*acc (+ beta*C unless beta == 0, when C is not read).
	g.label("store")
	g.p("VBROADCASTSS alpha+64(FP), %s", g.v(0))
	for i := 0; i < s.mr; i++ {
		for j := 0; j < s.nv; j++ {
			g.p("VMULPS %s, %s, %s", g.v(0), g.acc(i, j), g.acc(i, j))
		}
	}
	g.p("VMOVSS beta+68(FP), X1")
	g.p("VXORPS X2, X2, X2")
	g.p("VUCOMISS X2, X1")
	g.p("JNE %s", g.l("beta"))
	g.p("JPS %s", g.l("beta")) // NaN beta reads C like any other
	for i := 0; i < s.mr; i++ {
		for j := 0; j < s.nv; j++ {
			g.p("VMOVUPS %s, %d(DX)", g.acc(i, j), j*s.w*4)
		}
		if i < s.mr-1 {
			g.p("ADDQ R11, DX")
		}
	}
	g.p("VZEROUPPER")
	g.p("RET")
	g.label("beta")
	g.p("VBROADCASTSS beta+68(FP), %s", g.v(1))
	for i := 0; i < s.mr; i++ {
		for j := 0; j < s.nv; j++ {
			g.p("VFMADD231PS %d(DX), %s, %s", j*s.w*4, g.v(1), g.acc(i, j))
			g.p("VMOVUPS %s, %d(DX)", g.acc(i, j), j*s.w*4)
		}
		if i < s.mr-1 {
			g.p("ADDQ R11, DX")
		}
	}
	g.p("VZEROUPPER")
	g.p("RET")
	g.b.WriteString("\n")
}

// packRows emits packRowsAVX, which packs full panels of an untransposed
// B, prefetching the rows it will read next: B's rows are read in short
// stretches at a large stride, which the hardware prefetchers do not
// follow, and the packing would otherwise wait on memory.
func packRows(b *bytes.Buffer) {
	g := &gen{s: spec{name: "packRowsAVX"}}
	fmt.Fprintf(&g.b, "// func packRowsAVX(dst, src *float32, rows, lds, panels, nr int)\n")
	fmt.Fprintf(&g.b, "// Registers: DI dst, SI src, CX rows left, R8 lds, R9 panels, R10 nr,\n")
	fmt.Fprintf(&g.b, "// R11 rows*nr, R12 panels*nr (bytes), AX BX DX R13 cursors.\n")
	fmt.Fprintf(&g.b, "TEXT ·packRowsAVX(SB), NOSPLIT, $0-48\n")
	g.p("MOVQ dst+0(FP), DI")
	g.p("MOVQ src+8(FP), SI")
	g.p("MOVQ rows+16(FP), CX")
	g.p("MOVQ lds+24(FP), R8")
	g.p("SHLQ $2, R8")
	g.p("MOVQ panels+32(FP), R9")
	g.p("MOVQ nr+40(FP), R10")
	g.p("SHLQ $2, R10")
	g.p("MOVQ CX, R11")
	g.p("IMULQ R10, R11")
	g.p("MOVQ R9, R12")
	g.p("IMULQ R10, R12")
	g.p("TESTQ CX, CX")
	g.p("JEQ %s", g.l("done"))
	g.label("row")
	// Prefetch the same stretch prefetchRows rows ahead (a prefetch
	// never faults, past the end of B included).
	g.p("LEAQ (SI)(R8*8), AX")
	g.p("LEAQ (AX)(R8*8), AX")
	g.p("XORQ BX, BX")
	g.label("prefetch")
	g.p("PREFETCHT0 (AX)(BX*1)")
	g.p("ADDQ $64, BX")
	g.p("CMPQ BX, R12")
	g.p("JLT %s", g.l("prefetch"))
	g.p("MOVQ SI, AX")
	g.p("MOVQ DI, DX")
	g.p("MOVQ R9, R13")
	g.label("panel")
	g.p("XORQ BX, BX")
	g.label("chunk")
	g.p("VMOVUPS (AX)(BX*1), Y0")
	g.p("VMOVUPS Y0, (DX)(BX*1)")
	g.p("ADDQ $32, BX")
	g.p("CMPQ BX, R10")
	g.p("JLT %s", g.l("chunk"))
	g.p("ADDQ R10, AX")
	g.p("ADDQ R11, DX")
	g.p("DECQ R13")
	g.p("JNE %s", g.l("panel"))
	g.p("ADDQ R8, SI")
	g.p("ADDQ R10, DI")
	g.p("DECQ CX")
	g.p("JNE %s", g.l("row"))
	g.label("done")
	g.p("VZEROUPPER")
	g.p("RET")
	b.Write(g.b.Bytes())
}

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}

func main() {
	outPath := flag.String("o", "kernel_amd64.s", "output file")
	flag.Parse()
	var out bytes.Buffer
	out.WriteString("// Code generated by gen_kernels.go; DO NOT EDIT.\n\n")
	out.WriteString("//go:build amd64 && gc && !purego\n\n")
	out.WriteString("#include \"textflag.h\"\n\n")
	for _, s := range specs {
		if s.mr > 9 || s.accReg+s.mr*s.nv > map[string]int{"Y": 16, "Z": 32}[s.reg] {
			log.Fatalf("%s: too many registers", s.name)
		}
		g := &gen{s: s}
		g.kernel()
		out.Write(g.b.Bytes())
	}
	packRows(&out)
	if err := os.WriteFile(*outPath, out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
