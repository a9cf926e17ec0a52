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

// killGroup stops cmd's whole process group (the encoder and any child it started) at once.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
