package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
)

// helpFlagSet runs a command line ending in --help the way Run does and returns the flag set
// whose help it asked for (nil for a command with subcommands, which prints its own).
func helpFlagSet(t *testing.T, args []string) *flag.FlagSet {
	t.Helper()
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(args[1:], io.Discard, io.Discard)
			var he helpError
			if errors.As(err, &he) {
				return he.fs
			}
			if err != nil {
				t.Errorf("%q: %v", args, err)
			}
			return nil
		}
	}
	t.Fatalf("%q: no such command", args)
	return nil
}

// shownFlag matches a flag's line in a help's flag list.
func shownFlag(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(name) + `([ \t]|$)`)
}

// TestHelpEveryCommand: every command and subcommand answers --help on stdout with exit 0:
// its usage lines, what it prints, and exactly the flags it takes: every flag its flag set
// defines, less those it refuses (which are refused when given, naming the reason).
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands {
		if h, ok := helps[c.name]; !ok || h.short == "" || h.about == "" {
			t.Errorf("command %s has no help, or no line for mandelscope --help", c.name)
		}
	}
	refusedSeen := 0
	for path, h := range helps {
		if path == "" {
			continue
		}
		args := append(strings.Fields(path), "--help")
		var out, errb bytes.Buffer
		if code := Run(args, &out, &errb); code != 0 || errb.Len() > 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
			continue
		}
		text := out.String()
		if len(h.usage) == 0 { // a command with subcommands: each one's usage
			subs := subcommands(path)
			if len(subs) == 0 || !strings.HasPrefix(text, "usage: mandelscope "+path+" SUBCOMMAND") {
				t.Errorf("%q: subcommands %q, help:\n%s", args, subs, text)
			}
			for _, sub := range subs {
				for _, u := range helps[path+" "+sub].usage {
					if !strings.Contains(text, "mandelscope "+u+"\n") {
						t.Errorf("%q does not show %q:\n%s", args, u, text)
					}
				}
			}
			continue
		}
		if !strings.HasPrefix(text, "usage: mandelscope "+path) || !strings.Contains(text, "\nPrints on std") {
			t.Errorf("%q: no usage line, or nothing on what it prints:\n%s", args, text)
		}
		fs := helpFlagSet(t, args)
		if fs == nil || fs.Name() != "mandelscope "+path {
			t.Errorf("%q: the help came from flag set %v", args, fs)
			continue
		}
		usage := text[:strings.Index(text, "\n\n")]
		fs.VisitAll(func(f *flag.Flag) {
			why := refusal(fs, f.Name)
			shown := shownFlag(f.Name).MatchString(text)
			switch {
			case why == "" && !shown:
				t.Errorf("%q does not list -%s, which it takes", args, f.Name)
			case why != "" && (shown || strings.Contains(usage, "--"+f.Name)):
				t.Errorf("%q shows -%s, which it refuses:\n%s", args, f.Name, text)
			case why != "":
				refusedSeen++
				var o, e bytes.Buffer
				run := append(strings.Fields(path), "--"+f.Name+"=1")
				if code := Run(run, &o, &e); code != 2 || !strings.Contains(e.String(), "--"+f.Name+": "+why) {
					t.Errorf("%q: exit %d, stderr %q; want it refused: %s", run, code, e.String(), why)
				}
			}
		})
	}
	if refusedSeen == 0 {
		t.Error("no command refuses a flag: recolour refuses the view's flags")
	}
}

// TestRecolourHelp: recolour's usage names its input, and its help none of the view's flags.
func TestRecolourHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run([]string{"recolour", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	if !strings.HasPrefix(text, "usage: mandelscope recolour IN.exr [flags] -o OUT.png\n") {
		t.Errorf("usage line:\n%s", text)
	}
	for _, f := range viewFlags {
		if shownFlag(f).MatchString(text) {
			t.Errorf("recolour --help lists -%s", f)
		}
	}
	for _, f := range colourFlags {
		if !shownFlag(f).MatchString(text) {
			t.Errorf("recolour --help lacks -%s", f)
		}
	}
}

// TestMainHelp: `mandelscope --help` (and -h, help) lists every command with its line and
// every flag of the window.
func TestMainHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "help"} {
		var out, errb bytes.Buffer
		if code := Run([]string{arg}, &out, &errb); code != 0 || errb.Len() > 0 {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, errb.String())
		}
		text := out.String()
		if !strings.HasPrefix(text, "usage: mandelscope [flags]") {
			t.Errorf("%s: usage line:\n%s", arg, text)
		}
		for _, c := range commands {
			if !regexp.MustCompile(`(?m)^  ` + c.name + ` +` + regexp.QuoteMeta(helps[c.name].short) + `$`).MatchString(text) {
				t.Errorf("%s: no line for %s:\n%s", arg, c.name, text)
			}
		}
		fs := NewFlagSet("", io.Discard)
		AddWindowFlags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if !shownFlag(f.Name).MatchString(text) {
				t.Errorf("%s: the window's -%s is not listed", arg, f.Name)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"help", "probe"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "usage: mandelscope probe ") {
		t.Errorf("help probe: exit %d:\n%s%s", code, out.String(), errb.String())
	}
}

func TestWrap(t *testing.T) {
	got := wrap("aa bb cc dd", 5)
	if got != "aa bb\ncc dd" {
		t.Errorf("wrap: %q", got)
	}
}
