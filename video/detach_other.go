//go:build !unix

package video

import "os/exec"

// detach leaves cmd as it is where process groups are not Unix's.
func detach(*exec.Cmd) {}

// killGroup stops cmd's process where process groups are not Unix's.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
