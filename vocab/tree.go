package vocab

// treeInterval implements Tree.Interval from Children and Decode: the
// lowest cell under prefix is reached by always taking the first child, the
// highest by always taking the last one (special tokens at position 0 are
// skipped, so the empty prefix covers the finite range). A prefix that
// starts with a special token covers that special value only. An invalid
// prefix is a programming error and panics.
func treeInterval(tr Tree, a alphabet, prefix []int) (lo, hi float64) {
	n := tr.Len()
	if len(prefix) > n {
		panic("vocab: Interval: prefix longer than the sequence length")
	}
	var buf []int
	extend := func(last bool) []int {
		seq := make([]int, len(prefix), n)
		copy(seq, prefix)
		for len(seq) < n {
			buf = tr.Children(buf[:0], seq)
			pick := -1
			for _, t := range buf {
				if len(seq) == 0 && a.isSpecial(t) {
					continue
				}
				pick = t
				if !last {
					break
				}
			}
			if pick < 0 {
				panic("vocab: Interval: invalid prefix")
			}
			seq = append(seq, pick)
		}
		return seq
	}
	cl, err := tr.Decode(extend(false))
	if err != nil {
		panic("vocab: Interval: " + err.Error())
	}
	ch, err := tr.Decode(extend(true))
	if err != nil {
		panic("vocab: Interval: " + err.Error())
	}
	return cl.Lo, ch.Hi
}
