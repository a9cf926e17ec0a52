//go:build unix

package video

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a process group of its own, so that a Ctrl-C at the terminal reaches
// this process alone: it stops the encoder itself, and a half-written video never passes for
// a finished one.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
