package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ByteRate is a data rate in bytes per second. The zero value means unlimited.
//
// A *ByteRate is a pflag.Value, so it binds directly to a command-line flag:
//
//	rate := units.Unlimited
//	cmd.Flags().Var(&rate, "rate", "link rate, e.g. 8MB/s or 100Mbit/s")
type ByteRate int64

// Unlimited is the ByteRate that imposes no limit.
const Unlimited ByteRate = 0

// rateExample is shown in every parse error so the user sees a form that works.
const rateExample = `e.g. "8MB/s", "500kB/s", "100Mbit/s", "8MiB/s" or "unlimited"`

// prefixes maps a lower-cased prefix to its multiplier.
var prefixes = map[string]float64{
	"":   1,
	"k":  1e3,
	"m":  1e6,
	"g":  1e9,
	"t":  1e12,
	"ki": 1 << 10,
	"mi": 1 << 20,
	"gi": 1 << 30,
	"ti": 1 << 40,
}

// ParseByteRate parses a rate such as "8MB/s", "500kB/s", "8MiB/s", "1.5MB/s",
// "1Gbit/s", "100Mbps" or "unlimited". "0" also means unlimited. The "/s"
// suffix is optional and a bare number counts bytes per second. The result is
// rounded to whole bytes per second; a positive rate that rounds to zero, a
// negative rate and a rate above 9.2 EB/s are errors.
func ParseByteRate(s string) (ByteRate, error) {
	in := strings.TrimSpace(s)
	switch strings.ToLower(in) {
	case "unlimited", "none", "off", "inf":
		return Unlimited, nil
	}
	num, unit := splitNumber(in)
	if num == "" {
		return 0, fmt.Errorf("invalid rate %q: it must start with a number, %s", s, rateExample)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("invalid rate %q: %q is not a number, %s", s, num, rateExample)
	}
	if v < 0 {
		return 0, fmt.Errorf("invalid rate %q: it must not be negative, %s", s, rateExample)
	}
	mult, err := unitMultiplier(unit)
	if err != nil {
		return 0, fmt.Errorf("invalid rate %q: %v, %s", s, err, rateExample)
	}
	bps := math.Round(v * mult)
	if v > 0 && bps == 0 {
		return 0, fmt.Errorf("invalid rate %q: it is below 1 byte per second, %s", s, rateExample)
	}
	if bps >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid rate %q: it is too large, %s", s, rateExample)
	}
	return ByteRate(bps), nil
}

// splitNumber splits "1.5MB/s" into "1.5" and "MB/s".
func splitNumber(s string) (num, unit string) {
	i := 0
	for i < len(s) && strings.IndexByte("0123456789.+-", s[i]) >= 0 {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// unitMultiplier returns bytes per second for one unit of u, such as "MB/s",
// "Mbit/s", "Mbps", "KiB" or "" (bytes).
func unitMultiplier(u string) (float64, error) {
	switch {
	case strings.HasSuffix(u, "/s"):
		u = strings.TrimSuffix(u, "/s")
	case strings.HasSuffix(u, "/sec"):
		u = strings.TrimSuffix(u, "/sec")
	case strings.HasSuffix(u, "ps"): // "Mbps", "MBps"
		u = strings.TrimSuffix(u, "ps")
		if u == "" {
			return 0, fmt.Errorf(`unit "ps" needs b or B before it`)
		}
	}
	if u == "" {
		return 1, nil
	}
	// The quantity word: B and byte(s) are bytes, b and bit(s) are bits.
	var prefix string
	var perUnit float64
	lower := strings.ToLower(u)
	switch {
	case strings.HasSuffix(lower, "bytes"):
		prefix, perUnit = u[:len(u)-5], 1
	case strings.HasSuffix(lower, "byte"):
		prefix, perUnit = u[:len(u)-4], 1
	case strings.HasSuffix(lower, "bits"):
		prefix, perUnit = u[:len(u)-4], 1.0/8
	case strings.HasSuffix(lower, "bit"):
		prefix, perUnit = u[:len(u)-3], 1.0/8
	case strings.HasSuffix(u, "B"):
		prefix, perUnit = u[:len(u)-1], 1
	case strings.HasSuffix(u, "b"):
		prefix, perUnit = u[:len(u)-1], 1.0/8
	default:
		return 0, fmt.Errorf("unknown unit %q (use B for bytes or bit for bits)", u)
	}
	mult, ok := prefixes[strings.ToLower(prefix)]
	if !ok {
		return 0, fmt.Errorf("unknown prefix %q in %q (use k, M, G, T or Ki, Mi, Gi, Ti)", prefix, u)
	}
	return mult * perUnit, nil
}

// stringUnits are the units String may print, largest first; on a tie in
// length the earlier one wins.
var stringUnits = []struct {
	name string
	size int64
	si   bool
}{
	{"TB", 1e12, true}, {"TiB", 1 << 40, false},
	{"GB", 1e9, true}, {"GiB", 1 << 30, false},
	{"MB", 1e6, true}, {"MiB", 1 << 20, false},
	{"kB", 1e3, true}, {"KiB", 1 << 10, false},
}

// String prints r compactly in the form ParseByteRate reads back to the same
// value: "unlimited", "8MB/s", "1.5MB/s", "8MiB/s", "500kB/s", "999B/s". It
// chooses the shortest exact form; SI forms may carry up to three decimals,
// IEC forms are whole numbers. Negative rates print as bytes ("-5B/s").
func (r ByteRate) String() string {
	if r == 0 {
		return "unlimited"
	}
	n := int64(r)
	best := strconv.FormatInt(n, 10) + "B/s"
	if n < 0 {
		return best
	}
	for _, u := range stringUnits {
		if n < u.size {
			continue
		}
		var s string
		switch {
		case n%u.size == 0:
			s = strconv.FormatInt(n/u.size, 10)
		case u.si && n%(u.size/1000) == 0:
			milli := n / (u.size / 1000) // the value in thousandths of u
			s = strconv.FormatInt(milli/1000, 10) + "." +
				strings.TrimRight(fmt.Sprintf("%03d", milli%1000), "0")
		default:
			continue
		}
		if s += u.name + "/s"; len(s) < len(best) {
			best = s
		}
	}
	return best
}

// Set parses s with ParseByteRate; it makes *ByteRate a pflag.Value.
func (r *ByteRate) Set(s string) error {
	v, err := ParseByteRate(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Type names the flag value type in --help ("rate").
func (r *ByteRate) Type() string { return "rate" }
