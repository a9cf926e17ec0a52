package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/render/cpu"
)

// FuzzReadShard feeds arbitrary bytes to the shard reader the assembly uses: it must never
// panic, its errors are one line, and what it accepts holds exactly its strips' rows.
func FuzzReadShard(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "f.png")
	o := Options{Location: testLoc(), Width: 40, Height: 30, Tile: 16, StripBytes: 4 * 40 * 5, Version: "t", Shard: 1, Shards: 3}
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, o); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(ShardPath(path, 1, 3))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(shardSignature))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		sf, err := readShardFrom(bytes.NewReader(data), &out)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if err := sf.checkRows(); err != nil {
			t.Fatalf("accepted a shard whose rows do not fit: %v", err)
		}
	})
}
