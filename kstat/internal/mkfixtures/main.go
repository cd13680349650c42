// Command mkfixtures writes the binary fixtures of the kstat package's
// tests: the data /dev/kstat would hand a 64-bit illumos program for the
// kstat chain of package fixture (see kstat/testdata/README.md).
//
//	go run ./kstat/internal/mkfixtures            # from the module's root
//	go generate ./kstat/                          # the same
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/jobtrace/jobtrace/kstat/internal/fixture"
)

func main() {
	dir := flag.String("dir", filepath.Join("kstat", "testdata"), "directory to write the fixtures into")
	flag.Parse()
	files := fixture.Files()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(*dir, name)
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mkfixtures:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d bytes\n", path, len(files[name]))
	}
}
