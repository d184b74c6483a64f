package gemm

import (
	"syscall"
	"unsafe"
)

// guardedSlice returns n float32s that end exactly where an inaccessible
// page begins, so that reading past the end faults. The mapping is never
// freed: tests make few of them.
func guardedSlice(n int) []float32 {
	page := syscall.Getpagesize()
	size := (n*4+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic(err)
	}
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		panic(err)
	}
	if n == 0 {
		return nil
	}
	end := size - page
	return unsafe.Slice((*float32)(unsafe.Pointer(&mem[end-n*4])), n)
}
