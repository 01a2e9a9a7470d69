// Command nsimage builds netscript's container image from a static binary
// (`make image`): a docker-archive tarball and an OCI layout directory,
// with no registry and no container daemon (internal/imagebuild).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"netscript/internal/imagebuild"
)

func main() {
	var opt imagebuild.Options
	var created int64
	var tag, out, oci string
	flag.StringVar(&opt.Binary, "binary", "bin/image/netscript", "the static netscript binary")
	flag.Int64Var(&created, "created", 0, "the image's time, in seconds since 1970 (SOURCE_DATE_EPOCH: the commit's time)")
	flag.StringVar(&opt.Version, "version", "", "the version label")
	flag.StringVar(&opt.Revision, "revision", "", "the commit label")
	flag.StringVar(&opt.Arch, "arch", runtime.GOARCH, "the binary's architecture")
	flag.StringVar(&tag, "tag", "netscript:latest", "the image's name and tag")
	flag.StringVar(&out, "o", "bin/netscript-image.tar", "the docker-archive tarball to write")
	flag.StringVar(&oci, "oci", "", "an OCI layout directory to write too")
	flag.Parse()
	opt.Created = time.Unix(created, 0)
	img, err := imagebuild.Build(opt)
	if err == nil {
		err = imagebuild.WriteTarball(img, tag, out)
	}
	if err == nil && oci != "" {
		err = imagebuild.WriteLayout(img, tag, oci)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "nsimage:", err)
		os.Exit(1)
	}
	digest, _ := img.Digest()
	fmt.Printf("%s %s (%s)\n", out, tag, digest)
}
