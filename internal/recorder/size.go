package recorder

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size is a retention size in bytes for a flag: "512MiB", "2GB", "300MB",
// a bare number of bytes, or "unlimited" (-1: no limit by size). A *Size is
// a pflag.Value.
type Size int64

// sizeUnits are the suffixes Size reads, longest first.
var sizeUnits = []struct {
	name string
	mult float64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"KB", 1e3}, {"B", 1},
}

// ParseSize reads a Size.
func ParseSize(s string) (Size, error) {
	in := strings.TrimSpace(s)
	if strings.EqualFold(in, "unlimited") {
		return -1, nil
	}
	num, mult := in, 1.0
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(in, u.name); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid size %q: use a positive size such as 512MiB, 2GB or 300MB, or unlimited", s)
	}
	return Size(math.Round(v * mult)), nil
}

// String prints the size as ParseSize reads it.
func (z Size) String() string {
	switch {
	case z < 0:
		return "unlimited"
	case z > 0 && z%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", z>>30)
	case z > 0 && z%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", z>>20)
	}
	return fmt.Sprintf("%dB", int64(z))
}

// Set reads the flag's value.
func (z *Size) Set(s string) error {
	v, err := ParseSize(s)
	if err != nil {
		return err
	}
	*z = v
	return nil
}

// Type names the flag's kind in help.
func (z *Size) Type() string { return "size" }
