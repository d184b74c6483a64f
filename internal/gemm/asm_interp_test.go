package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// This file runs the micro-kernels of kernel_amd64.s through a small
// interpreter of the instructions they use, so that the AVX-512 kernel is
// checked on machines without AVX-512. The interpreter is itself checked
// against the CPU on the AVX2 kernel where the CPU has AVX2 (see
// TestInterpreterMatchesCPU), and every memory access it makes must fall
// inside A, B or C.

type asmInsn struct {
	op   string
	args []string
	line int
}

type asmFunc struct {
	insns  []asmInsn
	labels map[string]int
}

// parseAsm returns the functions of a Go assembly file by name.
func parseAsm(src string) (map[string]*asmFunc, error) {
	funcs := map[string]*asmFunc{}
	var cur *asmFunc
	for i, line := range strings.Split(src, "\n") {
		if j := strings.Index(line, "//"); j >= 0 {
			line = line[:j]
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "TEXT "):
			name := strings.TrimPrefix(strings.Fields(t)[1], "·")
			name = strings.TrimSuffix(strings.TrimSuffix(name, ","), "(SB)")
			cur = &asmFunc{labels: map[string]int{}}
			funcs[name] = cur
		case strings.HasSuffix(t, ":"):
			if cur == nil {
				return nil, fmt.Errorf("line %d: label outside a function", i+1)
			}
			cur.labels[strings.TrimSuffix(t, ":")] = len(cur.insns)
		default:
			if cur == nil {
				return nil, fmt.Errorf("line %d: instruction outside a function", i+1)
			}
			op, rest, _ := strings.Cut(t, " ")
			var args []string
			if rest = strings.TrimSpace(rest); rest != "" {
				for _, a := range strings.Split(rest, ",") {
					args = append(args, strings.TrimSpace(a))
				}
			}
			cur.insns = append(cur.insns, asmInsn{op: op, args: args, line: i + 1})
		}
	}
	return funcs, nil
}

// asmSeg is a region of simulated memory at byte address base.
type asmSeg struct {
	name string
	base int64
	mem  []float32
}

type asmMachine struct {
	gp         map[string]int64
	vec        [32][16]float32
	zf, pf, cf bool
	segs       []*asmSeg
	args       map[string]int64   // integer and pointer arguments by name
	fargs      map[string]float32 // float32 arguments by name
}

func (mc *asmMachine) fail(in asmInsn, format string, a ...any) error {
	return fmt.Errorf("kernel_amd64.s:%d: %s %s: %s", in.line, in.op, strings.Join(in.args, ", "), fmt.Sprintf(format, a...))
}

// vreg parses X/Y/Z registers: number and width in floats.
func vreg(s string) (int, int, bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	w := map[byte]int{'X': 4, 'Y': 8, 'Z': 16}[s[0]]
	n, err := strconv.Atoi(s[1:])
	if w == 0 || err != nil || n < 0 || n > 31 {
		return 0, 0, false
	}
	return n, w, true
}

var gpNames = map[string]bool{"AX": true, "BX": true, "CX": true, "DX": true, "SI": true, "DI": true,
	"R8": true, "R9": true, "R10": true, "R11": true, "R12": true, "R13": true}

// addr evaluates a memory operand "off(BASE)" or "off(BASE)(IDX*S)".
func (mc *asmMachine) addr(s string) (int64, bool) {
	i := strings.Index(s, "(")
	if i < 0 || !strings.HasSuffix(s, ")") {
		return 0, false
	}
	var off int64
	if i > 0 {
		v, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil {
			return 0, false
		}
		off = v
	}
	parts := strings.Split(strings.TrimSuffix(s[i+1:], ")"), ")(")
	base, ok := mc.gp[parts[0]]
	if !ok || !gpNames[parts[0]] {
		return 0, false
	}
	a := base + off
	if len(parts) == 2 {
		idx, scale, ok := strings.Cut(parts[1], "*")
		sc, err := strconv.Atoi(scale)
		if !ok || err != nil || !gpNames[idx] {
			return 0, false
		}
		a += mc.gp[idx] * int64(sc)
	} else if len(parts) > 2 {
		return 0, false
	}
	return a, true
}

// word returns the float32 at byte address a, which must lie in a segment.
func (mc *asmMachine) word(a int64) (*float32, error) {
	for _, s := range mc.segs {
		if a >= s.base && a < s.base+4*int64(len(s.mem)) {
			if (a-s.base)%4 != 0 {
				return nil, fmt.Errorf("misaligned access at %s+%d", s.name, a-s.base)
			}
			return &s.mem[(a-s.base)/4], nil
		}
	}
	return nil, fmt.Errorf("access at %#x outside A, B and C", a)
}

func (mc *asmMachine) load(in asmInsn, operand string, n int) ([]float32, error) {
	if name, ok := strings.CutSuffix(operand, "(FP)"); ok {
		nm, _, _ := strings.Cut(name, "+")
		v, ok := mc.fargs[nm]
		if !ok {
			return nil, mc.fail(in, "no float argument %s", nm)
		}
		return []float32{v}, nil
	}
	a, ok := mc.addr(operand)
	if !ok {
		return nil, mc.fail(in, "bad memory operand %s", operand)
	}
	out := make([]float32, n)
	for i := range out {
		p, err := mc.word(a + 4*int64(i))
		if err != nil {
			return nil, mc.fail(in, "%v", err)
		}
		out[i] = *p
	}
	return out, nil
}

// vsrc returns the first w lanes of a register or memory operand.
func (mc *asmMachine) vsrc(in asmInsn, operand string, w int) ([]float32, error) {
	if r, _, ok := vreg(operand); ok {
		return mc.vec[r][:w], nil
	}
	return mc.load(in, operand, w)
}

func (mc *asmMachine) gpval(in asmInsn, s string) (int64, error) {
	if v, ok := strings.CutPrefix(s, "$"); ok {
		return strconv.ParseInt(v, 10, 64)
	}
	if name, ok := strings.CutSuffix(s, "(FP)"); ok {
		nm, _, _ := strings.Cut(name, "+")
		v, ok := mc.args[nm]
		if !ok {
			return 0, mc.fail(in, "no integer argument %s", nm)
		}
		return v, nil
	}
	if !gpNames[s] {
		return 0, mc.fail(in, "unknown register %s", s)
	}
	return mc.gp[s], nil
}

func fma32(x, y, z float32) float32 { return float32(math.FMA(float64(x), float64(y), float64(z))) }

// run executes fn until RET, with at most maxSteps instructions.
func (mc *asmMachine) run(fn *asmFunc, maxSteps int) error {
	pc := 0
	for step := 0; ; step++ {
		if step > maxSteps {
			return fmt.Errorf("no RET after %d instructions", maxSteps)
		}
		if pc >= len(fn.insns) {
			return fmt.Errorf("ran off the end of the function")
		}
		in := fn.insns[pc]
		pc++
		a := in.args
		jump := func(cond bool) error {
			if cond {
				t, ok := fn.labels[a[0]]
				if !ok {
					return mc.fail(in, "unknown label")
				}
				pc = t
			}
			return nil
		}
		var err error
		switch in.op {
		case "RET":
			return nil
		case "VZEROUPPER", "PREFETCHT0":
		case "MOVQ":
			var v int64
			if v, err = mc.gpval(in, a[0]); err == nil {
				mc.gp[a[1]] = v
			}
		case "SHLQ", "SHRQ", "ADDQ", "ANDQ":
			var v int64
			if v, err = mc.gpval(in, a[0]); err != nil {
				break
			}
			d := mc.gp[a[1]]
			switch in.op {
			case "SHLQ":
				d <<= v
			case "SHRQ":
				d = int64(uint64(d) >> v)
			case "ADDQ":
				d += v
			case "ANDQ":
				d &= v
			}
			mc.gp[a[1]] = d
			mc.zf = d == 0
		case "DECQ":
			mc.gp[a[0]]--
			mc.zf = mc.gp[a[0]] == 0
		case "TESTQ":
			var x, y int64
			if x, err = mc.gpval(in, a[0]); err == nil {
				if y, err = mc.gpval(in, a[1]); err == nil {
					mc.zf = x&y == 0
				}
			}
		case "CMPQ":
			var x, y int64
			if x, err = mc.gpval(in, a[0]); err == nil {
				if y, err = mc.gpval(in, a[1]); err == nil {
					mc.zf = x == y
				}
			}
		case "LEAQ":
			ad, ok := mc.addr(a[0])
			if !ok {
				err = mc.fail(in, "bad address")
				break
			}
			mc.gp[a[1]] = ad
		case "JEQ":
			err = jump(mc.zf)
		case "JNE":
			err = jump(!mc.zf)
		case "JPS":
			err = jump(mc.pf)
		case "JMP":
			err = jump(true)
		case "VXORPS", "VPXORD":
			r1, _, ok1 := vreg(a[0])
			r2, _, ok2 := vreg(a[1])
			r3, _, ok3 := vreg(a[2])
			if !ok1 || !ok2 || !ok3 || r1 != r2 || r2 != r3 {
				err = mc.fail(in, "only zeroing idioms are modelled")
				break
			}
			mc.vec[r3] = [16]float32{} // VEX and EVEX zero the upper lanes
		case "VMOVSS":
			var v []float32
			r, _, ok := vreg(a[1])
			if !ok {
				err = mc.fail(in, "store form not modelled")
				break
			}
			if v, err = mc.load(in, a[0], 1); err == nil {
				mc.vec[r] = [16]float32{v[0]}
			}
		case "VUCOMISS":
			r1, _, _ := vreg(a[1])
			r2, _, _ := vreg(a[0])
			x, y := mc.vec[r1][0], mc.vec[r2][0]
			switch {
			case x != x || y != y:
				mc.zf, mc.pf, mc.cf = true, true, true
			case x == y:
				mc.zf, mc.pf, mc.cf = true, false, false
			case x < y:
				mc.zf, mc.pf, mc.cf = false, false, true
			default:
				mc.zf, mc.pf, mc.cf = false, false, false
			}
		case "VBROADCASTSS":
			r, w, ok := vreg(a[1])
			var v []float32
			if !ok || w < 8 {
				err = mc.fail(in, "bad destination")
				break
			}
			if v, err = mc.load(in, a[0], 1); err == nil {
				mc.vec[r] = [16]float32{}
				for i := 0; i < w; i++ {
					mc.vec[r][i] = v[0]
				}
			}
		case "VMOVUPS":
			if r, w, ok := vreg(a[0]); ok { // store
				ad, ok := mc.addr(a[1])
				if !ok {
					err = mc.fail(in, "bad memory operand")
					break
				}
				for i := 0; i < w && err == nil; i++ {
					var p *float32
					if p, err = mc.word(ad + 4*int64(i)); err == nil {
						*p = mc.vec[r][i]
					} else {
						err = mc.fail(in, "%v", err)
					}
				}
				break
			}
			r, w, ok := vreg(a[1])
			var v []float32
			if !ok {
				err = mc.fail(in, "bad destination")
				break
			}
			if v, err = mc.load(in, a[0], w); err == nil {
				mc.vec[r] = [16]float32{}
				copy(mc.vec[r][:], v)
			}
		case "VFMADD231PS", "VMULPS":
			r2, w, ok2 := vreg(a[1])
			r3, w3, ok3 := vreg(a[2])
			if !ok2 || !ok3 || w != w3 {
				err = mc.fail(in, "bad registers")
				break
			}
			var src []float32
			if src, err = mc.vsrc(in, a[0], w); err != nil {
				break
			}
			src = append([]float32(nil), src...)
			for i := 0; i < w; i++ {
				if in.op == "VMULPS" {
					mc.vec[r3][i] = mc.vec[r2][i] * src[i]
				} else {
					mc.vec[r3][i] = fma32(mc.vec[r2][i], src[i], mc.vec[r3][i])
				}
			}
		default:
			err = mc.fail(in, "instruction not modelled")
		}
		if err != nil {
			return err
		}
	}
}

// kernelCase is one call of a micro-kernel: operands laid out with the
// given strides, and C with row stride ldc inside a guard band.
type kernelCase struct {
	k, rsa, csa, rsb, ldc int
	alpha, beta           float32
	nanC                  bool
}

// layout returns A, B and C (C with guardLen guard elements both sides)
// for an mr x nr kernel.
func (kc kernelCase) layout(mr, nr int, rng *rand.Rand) (a, b, c []float32) {
	alen, blen := 1, 1
	if kc.k > 0 {
		alen = (mr-1)*kc.rsa + (kc.k-1)*kc.csa + 1
		blen = (kc.k-1)*kc.rsb + nr
	}
	a, b = make([]float32, alen), make([]float32, blen)
	for i := range a {
		a[i] = float32(rng.Float64()*2 - 1)
	}
	for i := range b {
		b[i] = float32(rng.Float64()*2 - 1)
	}
	c = make([]float32, (mr-1)*kc.ldc+nr+2*guardLen)
	for i := range c {
		c[i] = guardVal
		if j := i - guardLen; j >= 0 && j < (mr-1)*kc.ldc+nr && j%kc.ldc < nr {
			c[i] = float32(rng.Float64()*2 - 1)
			if kc.nanC {
				c[i] = float32(math.NaN())
			}
		}
	}
	return a, b, c
}

// exactKernel is the micro-kernel contract with fused multiply-adds in the
// documented order; the assembly must match it bit for bit.
func exactKernel(mr, nr int, kc kernelCase, a, b, c []float32) {
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			var acc float32
			for p := 0; p < kc.k; p++ {
				acc = fma32(a[i*kc.rsa+p*kc.csa], b[p*kc.rsb+j], acc)
			}
			o := guardLen + i*kc.ldc + j
			v := kc.alpha * acc
			if kc.beta != 0 {
				v = fma32(kc.beta, c[o], v)
			}
			c[o] = v
		}
	}
}

func interpretKernel(fn *asmFunc, kc kernelCase, a, b, c []float32) error {
	const baseA, baseB, baseC = 0x100000, 0x4000000, 0x8000000
	mc := &asmMachine{
		gp:   map[string]int64{},
		segs: []*asmSeg{{"A", baseA, a}, {"B", baseB, b}, {"C", baseC, c}},
		args: map[string]int64{"a": baseA, "b": baseB, "c": baseC + 4*guardLen,
			"k": int64(kc.k), "rsa": int64(kc.rsa), "csa": int64(kc.csa), "rsb": int64(kc.rsb), "ldc": int64(kc.ldc)},
		fargs: map[string]float32{"alpha": kc.alpha, "beta": kc.beta},
	}
	return mc.run(fn, 1000+200*kc.k)
}

var asmKernelShapes = []struct {
	name   string
	mr, nr int
}{{"sgemmKernelAVX2", 6, 16}, {"sgemmKernelAVX512", 8, 32}}

func kernelCases(mr, nr int) []kernelCase {
	var cases []kernelCase
	for _, k := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 13} {
		for v := 0; v < 6; v++ {
			kc := kernelCase{k: k, rsa: 1, csa: mr, rsb: nr, ldc: nr, alpha: 1, beta: 0, nanC: true}
			switch v {
			case 1: // packed, C strided, beta
				kc.ldc, kc.alpha, kc.beta, kc.nanC = nr+3, -0.5, 1.5, false
			case 2: // A in place, untransposed
				kc.rsa, kc.csa, kc.rsb, kc.ldc = k+2, 1, nr+5, nr+1
			case 3: // A in place, transposed
				kc.rsa, kc.csa, kc.alpha, kc.beta = 1, mr+3, 2, 1
			case 4: // B in place only
				kc.rsb, kc.beta, kc.nanC = 2*nr+1, -1, false
			case 5: // NaN beta reads C
				kc.beta, kc.nanC = float32(math.NaN()), false
			}
			cases = append(cases, kc)
		}
	}
	return cases
}

// TestAsmKernelsInterpreted checks both assembly kernels, AVX-512 included,
// against the exact contract on every path (packed and unrolled with each
// remainder, strided, beta 0 with NaNs in C, NaN beta), with guard bands
// around C and no access outside A, B and C.
func TestAsmKernelsInterpreted(t *testing.T) {
	src, err := os.ReadFile("kernel_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := parseAsm(string(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range asmKernelShapes {
		fn := funcs[ks.name]
		if fn == nil {
			t.Fatalf("%s not in kernel_amd64.s", ks.name)
		}
		rng := rand.New(rand.NewPCG(11, 12))
		for _, kc := range kernelCases(ks.mr, ks.nr) {
			a, b, c := kc.layout(ks.mr, ks.nr, rng)
			want := append([]float32(nil), c...)
			exactKernel(ks.mr, ks.nr, kc, a, b, want)
			if err := interpretKernel(fn, kc, a, b, c); err != nil {
				t.Fatalf("%s %+v: %v", ks.name, kc, err)
			}
			for i := range c {
				if math.Float32bits(c[i]) != math.Float32bits(want[i]) && !(kc.beta != kc.beta && c[i] != c[i] && want[i] != want[i]) {
					t.Fatalf("%s %+v: C[%d] = %g, want %g", ks.name, kc, i-guardLen, c[i], want[i])
				}
			}
		}
	}
}

// TestInterpreterMatchesCPU checks the interpreter against the CPU: the
// AVX2 kernel run natively and interpreted must agree bit for bit (and
// the AVX-512 one too where the CPU has it).
func TestInterpreterMatchesCPU(t *testing.T) {
	native := nativeAsmKernels()
	if len(native) == 0 {
		t.Skip("no assembly kernel runs on this CPU or in this build")
	}
	src, err := os.ReadFile("kernel_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := parseAsm(string(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range asmKernelShapes {
		run, ok := native[ks.name]
		if !ok {
			t.Logf("%s: not runnable here, checked by the interpreter only", ks.name)
			continue
		}
		rng := rand.New(rand.NewPCG(13, 14))
		for _, kc := range kernelCases(ks.mr, ks.nr) {
			a, b, c := kc.layout(ks.mr, ks.nr, rng)
			c2 := append([]float32(nil), c...)
			if err := interpretKernel(funcs[ks.name], kc, a, b, c); err != nil {
				t.Fatal(err)
			}
			run(kc.k, a, kc.rsa, kc.csa, b, kc.rsb, c2[guardLen:], kc.ldc, kc.alpha, kc.beta)
			for i := range c {
				if math.Float32bits(c[i]) != math.Float32bits(c2[i]) && !(c[i] != c[i] && c2[i] != c2[i]) {
					t.Fatalf("%s %+v: C[%d]: interpreted %g, CPU %g", ks.name, kc, i-guardLen, c[i], c2[i])
				}
			}
		}
	}
}
