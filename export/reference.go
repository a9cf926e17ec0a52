package export

// Reference orbit files for an export: computed once (ComputeReference, WriteReferenceFile)
// and read by every shard (ReadReferenceFile, Options.Reference) instead of each computing
// it, checked against the view and recorded by digest in each shard.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"mandelscope/fractal"
	"mandelscope/internal/userfile"
)

// frameOf is the frame an export of o renders, before its reference orbit: the location in
// its sampled colouring, at the supersampled size.
func (o *Options) frameOf() fractal.Frame {
	n := max(1, o.Supersample)
	loc := o.Location
	loc.Color = loc.Color.Sampled(n)
	f := fractal.NewFrame(loc, o.Width*n, o.Height*n)
	f.Derivative = o.Raw != ""
	f.Cycles = o.Raw != ""
	return f
}

// ComputeReference computes the reference orbit an export of opt computes for itself (the
// same bits): for a file that its shards read (Options.Reference) rather than each
// computing it. A view not deep enough for perturbation has none (an error says so).
func ComputeReference(ctx context.Context, opt Options, progress func(done, total int)) (*fractal.Reference, error) {
	if err := opt.Location.Validate(); err != nil {
		return nil, err
	}
	if err := checkSize(opt.Width, opt.Height); err != nil {
		return nil, err
	}
	f := opt.frameOf()
	if !f.Precision().Perturbs() {
		return nil, errors.New("the view needs no reference orbit: it is not deep enough for perturbation (about zoom 1e13 and deeper)")
	}
	return fractal.ComputeFrameReference(ctx, f, progress)
}

// WriteReferenceFile writes ref to path atomically and returns its digest. An existing path
// is refused (ErrExists) unless overwrite, or unless it already holds this very orbit (then
// it is left as it is: shards or reruns that write the same orbit agree).
func WriteReferenceFile(path string, ref *fractal.Reference, overwrite bool) (string, error) {
	data, digest, err := fractal.EncodeReference(ref)
	if err != nil {
		return "", err
	}
	err = userfile.WriteAtomic(path, data, 0, overwrite)
	if errors.Is(err, fs.ErrExist) {
		if _, d, rerr := ReadReferenceFile(path); rerr == nil && d == digest {
			return digest, nil
		}
		return "", newError(ErrExists, path, "%s already exists and holds another reference orbit", path)
	}
	if err != nil {
		return "", fmt.Errorf("cannot write %s: %v", path, err)
	}
	return digest, nil
}

// ReadReferenceFile reads and validates a reference orbit file (see fractal.DecodeReference):
// the orbit and its digest, or a one-line error naming the file and what is wrong.
func ReadReferenceFile(path string) (*fractal.Reference, string, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	ref, digest, err := fractal.DecodeReference(f)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", path, err)
	}
	return ref, digest, nil
}

// PrecheckReference says whether a reference orbit file can be written to path: its folder
// exists, and path is not a folder. (An existing file is refused later, unless it holds the
// same orbit or overwrite: WriteReferenceFile.)
func PrecheckReference(path string, overwrite bool) error {
	if err := checkFolder(filepath.Dir(path)); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return isFolderError(path)
	}
	return nil
}

// CheckReference says whether opt.Reference is the orbit an export of opt computes for
// itself (nil when it is, or when opt has none): a one-line error naming what differs.
func CheckReference(opt Options) error {
	if opt.Reference == nil {
		return nil
	}
	return opt.Reference.CheckFor(opt.frameOf())
}
