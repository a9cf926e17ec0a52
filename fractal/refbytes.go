package fractal

// Bytes is the memory the reference holds: its orbit, the exact tiny values, and the BLA
// tables built for it so far (they are built as frames need them, so the figure may grow).
func (ref *Reference) Bytes() int64 {
	n := 16*int64(cap(ref.Z)) + 64*int64(len(ref.tiny))
	ref.blaMu.Lock()
	defer ref.blaMu.Unlock()
	for _, b := range ref.blas {
		n += int64(b.Bytes())
	}
	for _, b := range ref.blaExps {
		n += int64(b.Bytes())
	}
	for _, b := range ref.fblas {
		n += int64(b.Bytes())
	}
	for _, b := range ref.fblaExps {
		n += int64(b.Bytes())
	}
	return n
}
