package cli

import (
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
	"mandelscope/render"
)

// runRecolour colours a raw file (export --raw) into a PNG without computing anything:
// `mandelscope recolour IN.exr [--palette --gradient --colouring --transfer --density
// --offset --line-width --light --light-strength --colour-shader] [--supersample=N] [--resume] [--force]
// -o OUT.png`. The view (centre, zoom, iterations) is the raw file's; the colouring is the
// file's with the flags applied.
func runRecolour(args []string, stdout, stderr io.Writer) error {
	job, err := parseRecolour(args, stderr)
	if job.src != nil {
		defer job.src.Close()
	}
	if err != nil {
		return err
	}
	warnLowDisk(job, stderr)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if job.loc.Color.HasShader() {
		return withShaderPainter(job, func(job exportJob, _ *render.GL) error { return doExport(job, nil, stderr, sigs) })
	}
	return doExport(job, nil, stderr, sigs)
}

func parseRecolour(args []string, stderr io.Writer) (exportJob, error) {
	job := exportJob{cmd: "recolour"}
	fs := NewFlagSet("recolour", stderr)
	lf := AddLocationFlags(fs)
	refuse(fs, "a recolour keeps the raw file's view (only the colouring changes); export again for another view", viewFlags...)
	ss := fs.Int("supersample", 0, "N: average N x N samples per pixel, 1 to 4, dividing the file's samples (default: the file's; the image is then its samples / N)")
	fs.BoolVar(&job.resume, "resume", false, "continue an interrupted recolour of the same image from FILE.png.part")
	fs.BoolVar(&job.force, "force", false, "overwrite FILE.png if it exists (and start over an interrupted recolour)")
	fs.StringVar(&job.out, "o", "", "output file FILE.png (required)")
	rest, err := ParseFlags(fs, args)
	if err != nil {
		return job, err
	}
	switch {
	case len(rest) == 0:
		return job, UsageErr("no raw file given (mandelscope recolour IN.exr -o OUT.png)")
	case len(rest) > 1:
		return job, UsageErr("unexpected argument %q (one raw file; the output is given with -o)", text.Clip(rest[1], 40))
	}
	in := rest[0]
	if job.out == "" {
		return job, UsageErr("-o: no output file given (-o FILE.png)")
	}
	if !strings.EqualFold(filepath.Ext(job.out), ".png") {
		return job, UsageErr("-o: %q must end in .png", text.Clip(job.out, 40))
	}
	if job.src, err = export.OpenRaw(in); err != nil {
		if errors.Is(err, export.ErrRawDamaged) {
			err = adviceError{fmt.Errorf("%s is damaged: %s", in, OneLine(errors.Unwrap(err))), rawDamagedAdvice("")}
		}
		return job, ExitError{2, fmt.Errorf("%s", OneLine(err))}
	}
	job.ss = job.src.Supersample
	if flagWasSet(fs, "supersample") {
		job.ss = *ss
	}
	if job.w, job.h, err = job.src.SizeFor(job.ss); err != nil {
		return job, UsageErr("--supersample: %v", err)
	}
	if job.loc, err = lf.Apply(job.src.Location, false); err != nil {
		return job, err
	}
	if job.loc.Color.NeedsChannels() && !job.src.Channels {
		return job, UsageErr("--colouring: the %s colouring reads the orbit channels T and STRIPE, which %s does not hold (export the view again with --colouring=%s and --raw)", job.loc.Color.Method, in, job.loc.Color.Method)
	}
	job.densityChosen = !flagWasSet(fs, "density") && job.src.Text[export.KeyDensityChosen] == "auto"
	if err := export.Precheck(job.out, job.resume, job.force); err != nil {
		return job, ExitError{2, withAdvice(err, job)}
	}
	return job, nil
}

// rawDamagedAdvice is what to do about a raw file that cannot be read (export.ErrRawDamaged):
// make it again; from is the damaged file when its header (the view) still reads.
func rawDamagedAdvice(from string) string {
	if from != "" {
		return fmt.Sprintf("export its view again with a raw file (mandelscope export --from=%s --raw=NEW.exr) and recolour that", from)
	}
	return "export the view again with --raw=NEW.exr and recolour that"
}
