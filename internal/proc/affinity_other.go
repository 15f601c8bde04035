//go:build !linux

package proc

import (
	"errors"
	"fmt"
)

// Allowed returns the CPUs the thread pid may run on. Only Linux supports it.
func Allowed(pid int) ([]int, error) {
	return nil, fmt.Errorf("read the CPU affinity of process %d: %w (CPU affinity needs Linux)", pid, errors.ErrUnsupported)
}

// Pin restricts the thread pid to cpus. Only Linux supports it.
func Pin(pid int, cpus []int) error {
	return fmt.Errorf("pin process %d: %w (CPU affinity needs Linux)", pid, errors.ErrUnsupported)
}
