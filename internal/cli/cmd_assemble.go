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

	"mandelscope/export"
	"mandelscope/internal/text"
)

// runAssemble joins the shards of an export into its PNG: `mandelscope assemble [--shards=N]
// [--force] [--remove-shards] FILE.png`, after `mandelscope export ... --shard=I/N -o
// FILE.png` for every I.
func runAssemble(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("assemble", stderr)
	shards := fs.Int("shards", 0, "N: the shard count (default: found from the FILE.png.shard-I-of-N files)")
	force := fs.Bool("force", false, "overwrite FILE.png if it exists")
	remove := fs.Bool("remove-shards", false, "remove the shard files once FILE.png is written")
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
	if !strings.EqualFold(filepath.Ext(out), ".png") {
		return UsageErr("%q must end in .png", text.Clip(out, 40))
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
