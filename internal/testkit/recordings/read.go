package recordings

import (
	"os"
	"path/filepath"

	"github.com/lagscope/lagscope/internal/sample"
)

// Read opens the recording name (without .json) of dir, for the tests
// that replay a recorded real run.
func Read(dir, name string) (*sample.Recording, error) {
	f, err := os.Open(filepath.Join(dir, name+".json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sample.ReadRecording(f)
}
