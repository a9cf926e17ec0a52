package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"mandelscope/export"
	"mandelscope/internal/text"
	"mandelscope/render/cpu"
	"mandelscope/video"
)

// runAssemble joins the shards of an export into its PNG: `mandelscope assemble [--shards=N]
// [--force] [--remove-shards] FILE.png`, after `mandelscope export ... --shard=I/N -o
// FILE.png` for every I; or makes a video from its shards' keyframes: `mandelscope assemble
// [--force] [--keep-keyframes] OUT.mp4`, after `mandelscope video ... --shard=I/N -o OUT.mp4`.
func runAssemble(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("assemble", stderr)
	shards := fs.Int("shards", 0, "N: the shard count (default: found from the FILE.png.shard-I-of-N files)")
	force := fs.Bool("force", false, "overwrite FILE.png if it exists")
	remove := fs.Bool("remove-shards", false, "remove the shard files once FILE.png is written")
	keep := fs.Bool("keep-keyframes", false, "a video: keep OUT.work after the video is made")
	rest, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) == 0:
		return UsageErr("no file given: mandelscope assemble FILE.png")
	case len(rest) > 1:
		return UsageErr("unexpected argument %q (give one FILE.png, after the flags)", text.Clip(rest[1], 40))
	}
	out := rest[0]
	switch strings.ToLower(filepath.Ext(out)) {
	case ".png":
	case ".mp4", ".mkv", ".webm", ".mov":
		return assembleVideo(out, *force, *keep, stderr)
	default:
		return UsageErr("%q must end in .png (an export), or .mp4, .mkv, .webm or .mov (a video)", text.Clip(out, 40))
	}
	if flagWasSet(fs, "shards") && (*shards < 1 || *shards > export.MaxShards) {
		return UsageErr("--shards: %d is out of range (1 to %d)", *shards, export.MaxShards)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := export.Assemble(ctx, out, export.AssembleOptions{Shards: *shards, Overwrite: *force, Remove: *remove})
	switch {
	case errors.Is(err, export.ErrUnfinished):
		return adviceError{err, "add --force to replace it"}
	case err != nil:
		return withAdvice(err, exportJob{cmd: "assemble"})
	}
	ref := ""
	if sum.Reference != "" {
		ref = ", reference orbit " + sum.Reference[:12]
	}
	fmt.Fprintf(stderr, "wrote %s: %dx%d from %d shards in %s, %s (%s%s)\n", sum.Path, sum.Width, sum.Height, sum.Shards,
		roundDur(sum.Elapsed), export.HumanBytes(sum.Bytes), sum.Renderer, ref)
	return nil
}

// assembleVideo composes and encodes a video from the keyframes its shards computed
// (`mandelscope video ... --shard=I/N -o OUT.mp4`), computing none.
func assembleVideo(out string, force, keep bool, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr = &lockedWriter{w: stderr}
	last := time.Now()
	progress := func(p video.Progress) {
		if p.Phase == "frames" && (time.Since(last) >= 5*time.Second || p.Done == p.Total) {
			fmt.Fprintf(stderr, "mandelscope assemble: %d of %d frames composed\n", p.Done, p.Total)
			last = time.Now()
		}
	}
	// The CPU renderer computes only an automatic density's sample here.
	sum, opt, err := video.Assemble(ctx, &cpu.Renderer{}, out, force, keep, progress)
	if err != nil {
		return videoAdvice(err, video.Options{Output: out}, true)
	}
	size := ""
	if st, err := os.Stat(out); err == nil {
		size = ", " + export.HumanBytes(st.Size())
	}
	fmt.Fprintf(stderr, "wrote %s: %d frames of %dx%d at %d fps (%gs)%s from %d keyframes in %s (composing %s, encoding %s)\n",
		out, sum.Frames, opt.Width, opt.Height, opt.FPS, opt.Duration, size, sum.Reused, roundDur(sum.Total), roundDur(sum.Compose), roundDur(sum.Encode))
	return nil
}
