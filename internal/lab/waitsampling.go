package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// waitSamplingSettings adds pg_wait_sampling to both servers'
// shared_preload_libraries, after checking that the servers' binaries
// have its library beside them.
func waitSamplingSettings(o *PairOptions) error {
	if !HaveWaitSampling(o.Bin) {
		major := "<major>"
		if m := regexp.MustCompile(`postgresql/(\d+)/bin`).FindStringSubmatch(o.Bin); m != nil {
			major = m[1]
		}
		return fmt.Errorf("pg_wait_sampling is not installed for the servers in %s: install Debian's postgresql-%s-pg-wait-sampling (apt-get install postgresql-%s-pg-wait-sampling), or drop --pg-wait-sampling", o.Bin, major, major)
	}
	for _, set := range []*map[string]string{&o.PubSettings, &o.SubSettings} {
		m := map[string]string{}
		for k, v := range *set {
			m[k] = v
		}
		m["shared_preload_libraries"] = "'pg_wait_sampling'"
		*set = m
	}
	return nil
}

// HaveWaitSampling reports whether pg_wait_sampling's library sits in the
// library directory of the server binaries in bin (Debian: ../lib).
func HaveWaitSampling(bin string) bool {
	for _, dir := range []string{"lib", "lib/postgresql"} {
		if _, err := os.Stat(filepath.Join(bin, "..", dir, "pg_wait_sampling.so")); err == nil {
			return true
		}
	}
	return false
}
