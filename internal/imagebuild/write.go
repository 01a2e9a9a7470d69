package imagebuild

import (
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// WriteTarball writes img, tagged tag ("netscript:0.1.0"), as a
// docker-archive tarball at path.
func WriteTarball(img v1.Image, tag, path string) error {
	ref, err := name.NewTag(tag, name.WeakValidation)
	if err != nil {
		return fmt.Errorf("image: tag %q: %w", tag, err)
	}
	if err := tarball.WriteToFile(path, ref, img); err != nil {
		return fmt.Errorf("image: write %s: %w", path, err)
	}
	return nil
}

// WriteLayout writes img as the one image of a new OCI layout directory
// dir (removed first if it is one already), annotated with tag.
func WriteLayout(img v1.Image, tag, dir string) error {
	if _, err := os.Stat(dir + "/oci-layout"); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("image: %w", err)
		}
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("image: layout %s: %w", dir, err)
	}
	ann := map[string]string{"org.opencontainers.image.ref.name": tag}
	if err := p.AppendImage(img, layout.WithAnnotations(ann)); err != nil {
		return fmt.Errorf("image: layout %s: %w", dir, err)
	}
	return nil
}
