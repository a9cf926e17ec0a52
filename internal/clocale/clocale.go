// Package clocale keeps Fyne quiet under the C/POSIX locale (common on servers, containers and
// CI). Fyne reads the locale while its packages initialise and logs "Error parsing user locale
// C" to stderr, which would put three lines of noise before every command's output. Imported
// first by main, and depending on nothing but os, this package initialises before Fyne's and
// maps a C/POSIX message locale to English for the process. A test of package main runs the
// binary under LANG=C.UTF-8 and checks that stderr stays clean.
package clocale

import (
	"os"
	"strings"
)

func init() {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		val := os.Getenv(v)
		if val == "" {
			continue
		}
		if val == "C" || val == "POSIX" || strings.HasPrefix(val, "C.") {
			if v == "LC_ALL" {
				// LC_ALL overrides everything: move it to LANG so LC_MESSAGES can take over.
				os.Unsetenv("LC_ALL")
				os.Setenv("LANG", val)
			}
			os.Setenv("LC_MESSAGES", "en_US.UTF-8")
		}
		return
	}
}
