//go:build openblas && cgo

package cblas

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <cblas.h>

// Debian's OpenBLAS 0.3.21 picks its kernels for the CPU in its library
// constructor, reading OPENBLAS_CORETYPE, and misdetects recent CPUs (it
// falls back to SSE3 kernels). A constructor in this binary would run
// after the library's if the library were linked, which is too late, so
// the library is opened with dlopen once OPENBLAS_CORETYPE is set.

static __typeof__(&cblas_sgemm) ob_sgemm;
static __typeof__(&openblas_set_num_threads) ob_set_threads;
static __typeof__(&openblas_get_corename) ob_corename;

static const char *ob_load(const char *coretype) {
	if (coretype[0] != 0) {
		setenv("OPENBLAS_CORETYPE", coretype, 0); // a user's setting wins
	}
	void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		h = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
	}
	if (h == NULL) {
		return dlerror();
	}
	ob_sgemm = (__typeof__(ob_sgemm))dlsym(h, "cblas_sgemm");
	ob_set_threads = (__typeof__(ob_set_threads))dlsym(h, "openblas_set_num_threads");
	ob_corename = (__typeof__(ob_corename))dlsym(h, "openblas_get_corename");
	if (ob_sgemm == NULL || ob_set_threads == NULL || ob_corename == NULL) {
		return "libopenblas lacks cblas_sgemm, openblas_set_num_threads or openblas_get_corename";
	}
	return NULL;
}

static void ob_gemm(int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
		const float *b, int ldb, float beta, float *c, int ldc) {
	ob_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
		m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void ob_threads(int n) { ob_set_threads(n); }
static const char *ob_core(void) { return ob_corename(); }
*/
import "C"

import (
	"errors"
	"math"
	"sync"
	"unsafe"
)

var (
	loadOnce sync.Once
	loadErr  error

	// mu serialises the calls: OpenBLAS's thread count is one setting of
	// the library's, so each call sets it and multiplies under the lock,
	// and concurrent calls on different counts do not change each other's.
	mu      sync.Mutex
	threads int // last count given to openblas_set_num_threads
)

// Load sets OPENBLAS_CORETYPE to coretype unless the environment already
// has it (an empty coretype leaves it alone), then opens libopenblas. Only
// the first call does anything; every call returns its error.
func Load(coretype string) error {
	loadOnce.Do(func() {
		ct := C.CString(coretype)
		defer C.free(unsafe.Pointer(ct))
		if msg := C.ob_load(ct); msg != nil {
			loadErr = errors.New("cannot load libopenblas: " + C.GoString(msg))
		}
	})
	return loadErr
}

// CoreName returns the name of the kernels OpenBLAS chose.
func CoreName() string { return C.GoString(C.ob_core()) }

// Sgemm calls cblas_sgemm (row-major) on nthreads OpenBLAS threads, one
// call at a time (see mu). The caller has checked the arguments and that
// Load succeeded; m, n >= 1.
func Sgemm(nthreads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if max(m, n, k, lda, ldb, ldc) > math.MaxInt32 {
		panic("gemm: dimension too large for OpenBLAS")
	}
	mu.Lock()
	defer mu.Unlock()
	if nthreads != threads {
		C.ob_threads(C.int(nthreads))
		threads = nthreads
	}
	var dummy [1]float32 // OpenBLAS reads no A or B when k is 0, but wants pointers
	pa, pb := &dummy[0], &dummy[0]
	if k > 0 {
		pa, pb = &a[0], &b[0]
	}
	C.ob_gemm(C.int(b2i(transA)), C.int(b2i(transB)), C.int(m), C.int(n), C.int(k), C.float(alpha),
		(*C.float)(pa), C.int(lda), (*C.float)(pb), C.int(ldb), C.float(beta), (*C.float)(&c[0]), C.int(ldc))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
