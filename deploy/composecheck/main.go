// Command composecheck checks a compose file without a Docker engine: it loads it with
// compose-go, the loader `docker compose config` is built on (the Compose Specification's
// schema, interpolation of ${VAR:?...}, merges and normalization), and prints the
// resolved model, or the error and exit status 1.
//
//	go -C deploy/composecheck run . ../../compose.cluster.yaml
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: composecheck FILE")
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions(os.Args[1:2], cli.WithOsEnv, cli.WithDotEnv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := project.MarshalYAML()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
