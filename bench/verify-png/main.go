// Command verify-png verifies PNG files (a 32K export, say) with the project's streaming
// verifier, which reads a file of any size in constant memory: every chunk's CRC, the
// zlib stream and its Adler-32, the rows' filters and the size. It prints each file's size,
// chunks, compressed and raw bytes, and the view its text chunks record.
//
// Usage (from the project root): go run ./bench/verify-png FILE.png...
package main

import (
	"fmt"
	"os"

	"mandelscope/export"
	"mandelscope/internal/pngverify"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: verify-png FILE.png...")
		os.Exit(2)
	}
	failed := false
	for _, path := range os.Args[1:] {
		if err := verify(path); err != nil {
			fmt.Fprintf(os.Stderr, "verify-png: %s: %v\n", path, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func verify(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := pngverify.Verify(f, nil)
	if err != nil {
		return err
	}
	md, err := export.ReadMetadata(path)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %dx%d, %d chunks (%d IDAT), %d compressed bytes, %d raw; %s\n", path, info.Width, info.Height, info.Chunks, info.IDATChunks, info.Compressed, info.Raw, md.Location)
	return nil
}
