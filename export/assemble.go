package export

// Assemble: the shards of an export joined into its PNG, streamed, without re-compressing.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"mandelscope/internal/userfile"
)

// AssembleOptions says how to assemble.
type AssembleOptions struct {
	// Shards is the shard count; 0 finds it from the shard files beside the PNG.
	Shards int
	// Overwrite allows replacing an existing PNG (and a .part left beside it).
	Overwrite bool
	// Remove removes the shard files once the PNG is published.
	Remove bool
}

// AssembleSummary tells how an assembly went.
type AssembleSummary struct {
	Path          string
	Shards        int
	Width, Height int
	Bytes         int64
	Renderer      string
	Reference     string // the reference orbit's digest the shards share ("" without one)
	Elapsed       time.Duration
}

// shardName matches a shard file's name (not its .part, checkpoint or lock).
var shardName = regexp.MustCompile(`\.shard-([0-9]{1,6})-of-([0-9]{1,6})(\.part)?$`)

// findShardCount is the shard count of the shard files (and unfinished ones) beside path.
func findShardCount(path string) (int, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	counts := map[int]bool{}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, base+".shard-") {
			continue
		}
		m := shardName.FindStringSubmatch(name[len(base):])
		if m == nil || len(m[0]) != len(name)-len(base) {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if n >= 1 && n <= MaxShards {
			counts[n] = true
		}
	}
	switch len(counts) {
	case 0:
		return 0, newError(ErrShards, path, "no shards of %s found (%s.shard-I-of-N)", path, path)
	case 1:
		for n := range counts {
			return n, nil
		}
	}
	var ns []string
	for n := range counts {
		ns = append(ns, strconv.Itoa(n))
	}
	sort.Strings(ns)
	return 0, newError(ErrShards, path, "shards of %s of different counts are there (%s of them): give the count", path, strings.Join(ns, ", "))
}

// Assemble joins the shards of the export to path (ShardPath(path, i, n) for i < n) into
// path: byte for byte the PNG a one-machine export of the same parameters writes. It
// streams: the shards' IDAT chunks are copied as they are, their Adler-32s combined, and no
// image is held. Every shard is checked (its header against the others': the parameters,
// size, strips and PNG header; the renderer and reference orbit in its trailer; every
// chunk's CRC and the CRC-32 of the whole file): a missing, unfinished, damaged or
// mismatched shard gives an *Error of kind ErrShards naming each one, and no file at path.
// The PNG is written as path.part and renamed into place, under path's lock, following the
// export's rules: an existing path, or a .part left beside it, is refused without
// opt.Overwrite (a .part without a checkpoint, which holds nothing that can be resumed, is
// replaced).
func Assemble(ctx context.Context, path string, opt AssembleOptions) (AssembleSummary, error) {
	t0 := time.Now()
	sum := AssembleSummary{Path: path}
	n, err := checkAssemble(path, opt)
	if err != nil {
		return sum, err
	}
	sum.Shards = n
	lock, err := lockTarget(path)
	if err != nil {
		return sum, err
	}
	defer lock.release()
	if err := checkAssembleFiles(path, opt.Overwrite); err != nil {
		return sum, err
	}

	// First the headers: every shard there, finished, of one image, in its place.
	hdrs, err := checkShardHeaders(path, n)
	if err != nil {
		return sum, err
	}
	h0 := hdrs[0]
	sum.Width, sum.Height = h0.Width, h0.Height

	// Then the data, into the .part, renamed into place.
	part := PartPath(path)
	written, err := writeAssembly(ctx, path, part, n, h0, &sum)
	if err != nil {
		return sum, err
	}
	if err := publish(part, path, opt.Overwrite); err != nil {
		if !isKind(err, ErrAppeared) && !isKind(err, ErrIsFolder) {
			os.Remove(part)
		}
		return sum, err
	}
	if opt.Overwrite {
		os.Remove(CheckpointPath(path)) // an interrupted export's, whose .part this replaced
	}
	userfile.SyncDir(filepath.Dir(path))
	sum.Bytes = written
	if opt.Remove {
		for i := range n {
			os.Remove(ShardPath(path, i, n))
		}
	}
	sum.Elapsed = time.Since(t0)
	return sum, nil
}

// checkAssemble checks Assemble's path and its folder, and returns the shard count:
// opt.Shards, or that of the shards beside path.
func checkAssemble(path string, opt AssembleOptions) (int, error) {
	if !strings.EqualFold(filepath.Ext(path), ".png") {
		return 0, fmt.Errorf("output %s must end in .png", path)
	}
	if err := checkFolder(filepath.Dir(path)); err != nil {
		return 0, err
	}
	if err := checkTarget(path); err != nil {
		return 0, err
	}
	n := opt.Shards
	if n == 0 {
		return findShardCount(path)
	} else if n < 1 || n > MaxShards {
		return 0, fmt.Errorf("the shard count %d is out of range (1 to %d)", n, MaxShards)
	}
	return n, nil
}

// writeAssembly writes the PNG the n shards of path make into part, synced and closed, and
// returns its size; sum gets the shards' renderer and reference orbit. On an error no part
// is left.
func writeAssembly(ctx context.Context, path, part string, n int, h0 shardHeader, sum *AssembleSummary) (int64, error) {
	f, err := createPart(part)
	if err != nil {
		return 0, err
	}
	failed := func(err error) (int64, error) {
		f.Close()
		os.Remove(part)
		return 0, err
	}
	out := &crcSink{sink: f}
	pw := &pngWriter{w: out, adler: 1}
	pw.write(h0.PNGHeader)
	first, auto, err := joinShards(ctx, path, part, n, h0, out, pw)
	if err != nil {
		return failed(err)
	}
	if want := int64(h0.Height) * int64(3*h0.Width+1); pw.raw != want {
		return failed(newError(ErrShards, path, "the shards of %s hold %d bytes of rows where the image has %d", path, pw.raw, want))
	}
	sum.Renderer, sum.Reference = first.Renderer, first.Reference
	if err := pw.Close(TrailerText(auto)...); err != nil {
		return failed(fmt.Errorf("%s: %w", part, err))
	}
	if err := f.Sync(); err != nil {
		return failed(fmt.Errorf("%s: %w", part, err))
	}
	if err := f.Close(); err != nil {
		os.Remove(part)
		return 0, fmt.Errorf("%s: %w", part, err)
	}
	return pw.off, nil
}

// joinShards streams the n shards' data into out, pw following, every shard read to its
// end even after a damaged one, so that the error names them all. It returns the first
// shard's trailer, and whether every shard's density was chosen automatically (auto).
func joinShards(ctx context.Context, path, part string, n int, h0 shardHeader, out io.Writer, pw *pngWriter) (first *shardTrailer, auto bool, err error) {
	var problems []string
	auto = true
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, false, &Error{Kind: ErrInterrupted, Path: part, Msg: "interrupted; nothing was written", Err: err}
		}
		sp := ShardPath(path, i, n)
		cw := &countWriter{w: out}
		var sf shardFile
		if problems != nil {
			sf, err = readShard(sp, nil) // only checked, to name every damaged shard
		} else {
			sf, err = readShard(sp, cw)
		}
		var we writeErr
		if errors.As(err, &we) {
			return nil, false, fmt.Errorf("%s: %w", part, we.error)
		}
		if err == nil {
			err = shardMatches(sf, h0, first)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("shard %d of %d damaged (%s: %s)", i, n, sp, err))
			continue
		}
		if first == nil {
			t := sf.trailer
			first = &t
		}
		pw.off += cw.n
		pw.adler = adlerCombine(pw.adler, sf.trailer.Adler, sf.trailer.Uncompressed)
		pw.raw += sf.trailer.Uncompressed
		auto = auto && sf.trailer.AutoDensity
	}
	if problems != nil {
		return nil, false, shardsError(path, problems)
	}
	return first, auto, nil
}

// shardMatches says how shard sf, read whole, differs from the header the shards were
// checked against, h0, or (its trailer) from the first sound shard's, first (nil if none).
func shardMatches(sf shardFile, h0 shardHeader, first *shardTrailer) error {
	switch {
	case sf.hdr.Params != h0.Params:
		return errors.New("it changed while it was read")
	case first != nil && sf.trailer.Renderer != first.Renderer:
		return fmt.Errorf("it was drawn by %s, the shards before it by %s", sf.trailer.Renderer, first.Renderer)
	case first != nil && sf.trailer.Reference != first.Reference:
		return fmt.Errorf("it was drawn with the reference orbit %s, the shards before it with %s", shortDigest(sf.trailer.Reference), shortDigest(first.Reference))
	}
	return nil
}

// checkAssembleFiles follows the export's rules for the files at path: an existing path is
// replaced only with overwrite, and so is an interrupted export's .part that its checkpoint
// can resume. A .part without a checkpoint (an assembly killed before it renamed its file,
// or an export that saved nothing) holds nothing to keep, and is replaced: so a cluster's
// assemble job runs again after it was killed.
func checkAssembleFiles(path string, overwrite bool) error {
	if _, err := os.Lstat(path); err == nil && !overwrite {
		return newError(ErrExists, path, "%s already exists", path)
	}
	if _, err := os.Lstat(CheckpointPath(path)); err == nil && !overwrite {
		part := PartPath(path)
		return &Error{Kind: ErrUnfinished, Path: part, Kept: true, Msg: part + " is left from an interrupted export (it can be resumed)"}
	}
	return nil
}

// checkShardHeaders reads every shard's header and says, in one error naming each, which
// are missing, unfinished, unreadable or of another image than shard 0 (or the first one
// read).
func checkShardHeaders(path string, n int) ([]shardHeader, error) {
	hdrs := make([]shardHeader, n)
	var problems []string
	var ref *shardHeader
	for i := range n {
		sp := ShardPath(path, i, n)
		st, err := os.Stat(sp)
		if err != nil {
			what := "missing"
			if _, perr := os.Lstat(PartPath(sp)); perr == nil {
				what, sp = "unfinished", PartPath(sp)
			}
			problems = append(problems, fmt.Sprintf("shard %d of %d %s (%s)", i, n, what, sp))
			continue
		}
		if !st.Mode().IsRegular() {
			problems = append(problems, fmt.Sprintf("shard %d of %d damaged (%s is not a plain file)", i, n, sp))
			continue
		}
		h, err := readHeaderOnly(sp)
		if err == nil && (h.Shard != i || h.Shards != n) {
			err = fmt.Errorf("it holds shard %d of %d", h.Shard, h.Shards)
		}
		if err == nil && ref != nil {
			err = sameImage(*ref, h)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("shard %d of %d damaged (%s: %s)", i, n, sp, err))
			continue
		}
		if ref == nil {
			ref = &h
		}
		hdrs[i] = h
	}
	if problems != nil {
		return nil, shardsError(path, problems)
	}
	return hdrs, nil
}

// sameImage says how b is not a shard of the image a is one of, nil when it is.
func sameImage(a, b shardHeader) error {
	switch {
	case a.Params != b.Params:
		if d := paramsDiff(a.Description, b.Description); d != "" {
			return fmt.Errorf("it was made for other parameters than shard %d: %s", a.Shard, d)
		}
		return fmt.Errorf("it was made for other parameters than shard %d", a.Shard)
	case a.Width != b.Width || a.Height != b.Height || a.Strips != b.Strips || a.StripRows != b.StripRows:
		return fmt.Errorf("its size or strips differ from shard %d's", a.Shard)
	case string(a.PNGHeader) != string(b.PNGHeader):
		return fmt.Errorf("its PNG header differs from shard %d's", a.Shard)
	}
	return nil
}

// readHeaderOnly reads a shard file's header.
func readHeaderOnly(path string) (shardHeader, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return shardHeader{}, err
	}
	defer f.Close()
	return readShardHeader(&shardReader{r: bufio.NewReaderSize(f, 1<<16)})
}

// shardsError is one line naming every problem found (the first ten, and how many more).
func shardsError(path string, problems []string) *Error {
	more := ""
	if len(problems) > 10 {
		more = fmt.Sprintf("; and %d more", len(problems)-10)
		problems = problems[:10]
	}
	x := newError(ErrShards, path, "%s%s; nothing was written to %s", strings.Join(problems, "; "), more, path)
	return x
}

// shortDigest is the start of a digest, for messages.
func shortDigest(d string) string {
	if d == "" {
		return "(none)"
	}
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// countWriter counts the bytes written through it to w.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
